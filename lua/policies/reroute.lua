-- reroute: move traffic off the hottest link. Each phase that loads it,
-- the one that runs it hottest first, is routed y-first, then half of every flow each way
-- (balanced), one try a step; a routing is kept when the busiest window
-- cools (or stays and the step gets faster), and undone otherwise.
--
-- Helps: rings that turn corners, e.g. groups of 4 in rank order on the
-- 5x5 layouts/dojo-tile.yaml
--   wafertop tune --net fluid --policy reroute --layout dojo-tile --strategy DP4,TATP4 \
--     --placement linear --model tests/fixtures/models/search-small.yaml
-- (by step 10 the busiest window goes from 57.4 % to 47.7 % and the step
-- from 7.89300 ms to 7.87637 ms: the DP ring and fwd.attn.core balanced,
-- bwd.mlp.out yx).
-- It cannot help rings whose hops are straight lines between neighbours
-- (tiles placement): every routing takes the same links.
local trial = require "trial"
local contention = require "contention"

local t = trial.new(function(r) return r.max_peak_util + 1e-6 * r.step_time_s end)
local exhausted = {} -- hottest links whose every move was tried

wt.policy("reroute", {
  help = "routes the phases on the hottest link yx, then balanced, and keeps what cools it",
  on_step = function(session, r)
    if t:judge(r, session) ~= "ready" then return end
    local hottest = r:hot_links(0)[1]
    if not hottest or exhausted[contention.key(hottest)] then return end
    local before = session.strategy.routing
    for _, p in ipairs(contention.on_link(r, hottest)) do
      for _, mode in ipairs({"yx", "balanced"}) do
        local name = p.name .. " " .. mode
        if mode ~= before and not t:was_tried(name) then
          t:try(session, name, function(s) s:set_routing(p.name, mode) end,
            function(s) s:set_routing(p.name, before) end)
          return
        end
      end
    end
    exhausted[contention.key(hottest)] = true
  end,
})
