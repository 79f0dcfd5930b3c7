-- priority: the critical path's traffic first. When the gradient all-reduce
-- is exposed at the end of the step, its traffic is served before the
-- backward traffic it overlaps, so it runs during the whole last backward
-- instead of only its compute. Kept only if the step gets faster.
--
-- Helps: DP and the backward using different links, e.g. DP along columns
-- and TATP along rows on the 4x16 tests/fixtures/layouts/column.yaml:
--   wafertop tune --policy priority --layout tests/fixtures/layouts/column.yaml \
--     --model tests/fixtures/models/policy-wide.yaml --strategy DP16,TATP4x1 --net bottleneck
-- (the step drops from 0.517 ms to 0.357 ms; the closed form's DP-first overlap).
local trial = require "trial"

local t = trial.new(function(r) return r.step_time_s end)

wt.policy("priority", {
  help = "serves the exposed gradient all-reduce before the backward traffic",
  on_step = function(session, r)
    if t:judge(r, session) ~= "ready" or t:was_tried("dp") or r.dp_exposed_s <= 0.01 * r.step_time_s then return end
    t:try(session, "dp", function(s) s:set_priority("dp.allreduce") end,
      function(s) s:set_priority(nil) end)
  end,
})
