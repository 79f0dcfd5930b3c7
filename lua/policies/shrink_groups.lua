-- shrink_groups: use more local groups. Collectives of groups larger than
-- 8x8 become hierarchical (inside each 8x8 window, then across), so a 16x16
-- group runs as four 8x8 subgroups instead of one ring over the whole wafer.
--
-- Helps: a large DP group on linear placement, whose rank-order ring wraps
-- across every row, e.g. on layouts/default.yaml
--   wafertop tune --net fluid --policy shrink_groups --strategy DP256 --placement linear \
--     --model tests/fixtures/models/policy-small.yaml
-- (the step drops from 5.50454 ms to 1.31296 ms; the busiest window rises
-- from 7.4 % to 32.6 %, its traffic in about a quarter of the time). Kept only
-- if the step gets faster; groups that fit in 8x8 windows do not change.
local trial = require "trial"

local t = trial.new(function(r) return r.step_time_s end)

wt.policy("shrink_groups", {
  help = "collectives of groups larger than 8x8 become hierarchical over 8x8 subgroups",
  on_step = function(session, r)
    if t:judge(r, session) ~= "ready" or t:was_tried("subgroup") then return end
    local before = session.strategy
    t:try(session, "subgroup", function(s) s:set_subgroup(8, 8) end,
      function(s) s:set_strategy(before) end)
  end,
})
