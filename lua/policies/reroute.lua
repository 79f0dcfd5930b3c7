-- reroute: send traffic the other way round. Tries y-first routing, then half
-- of every flow each way (balanced), and keeps whichever lowers the hottest
-- link (then the step time) the most.
--
-- Helps: flows that turn corners, e.g. TP groups of 12 placed row by row on a
-- 16-wide wafer, whose rings straddle rows:
--   wafertop tune --policy reroute --model tests/fixtures/models/policy-tp12.yaml \
--     --strategy TP12 --placement linear
-- (balanced routing takes the busiest link from 3.1 % to 2.5 % of the step).
local trial = require "trial"

local t = trial.new(function(r) return r.max_link_util + 1e-6 * r.step_time_s end)

wt.policy("reroute", {
  help = "tries yx, then balanced routing, and keeps the coolest",
  on_step = function(session, r)
    if t:judge(r, session) ~= "ready" then return end
    local before = session.strategy.routing
    for _, mode in ipairs({"yx", "balanced"}) do
      if mode ~= before and not t:was_tried(mode) then
        t:try(session, mode, function(s) s:set_routing(mode) end,
          function(s) s:set_routing(before) end)
        return
      end
    end
  end,
})
