-- trial: a policy's memory. Try one action at a time; the next step judges
-- it against the best step seen so far, and an action that made things
-- worse is undone, so the session always returns to the best setup it found.
--
--   local trial = require "trial"
--   local t = trial.new(function(r) return r.step_time_s end)   -- lower is better
--   on_step = function(session, r)
--     if t:judge(r, session) == "ready" then t:try(session, "my move", do_it, undo_it) end
--   end
--
-- act and undo get the session of the step they run in: a hook's session
-- and result objects live only during that hook, so closures must not keep
-- them (keep numbers, as best does).
local M = {}
M.__index = M

-- score(result) -> number; lower is better.
function M.new(score)
  return setmetatable({score = score, best = nil, pending = nil, tried = {}}, M)
end

-- Judges the pending action (if any) on this step's result. Returns "kept",
-- "undone" or "ready" (nothing pending: free to try something).
function M:judge(result, session)
  local s = self.score(result)
  if self.pending then
    local p = self.pending
    self.pending = nil
    if self.best and s > self.best * (1 + 1e-9) then
      p.undo(session)
      return "undone"
    end
    self.best = s
    return "kept"
  end
  if not self.best or s < self.best then self.best = s end
  return "ready"
end

-- Does an action now; the next judge keeps it or calls undo(session).
function M:try(session, name, act, undo)
  self.tried[name] = true
  act(session)
  self.pending = {name = name, undo = undo}
end

-- Whether an action of this name was tried already.
function M:was_tried(name) return self.tried[name] == true end

return M
