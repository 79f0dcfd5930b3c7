-- inject_delay: stop colliding collectives from overlapping. The phase whose
-- links run hottest is split into two waves that run one after another: its
-- peak load halves, the phase takes longer. Kept only while the hottest link
-- cools and the step stays within 10 % of the best step seen; otherwise the
-- next hottest phase is tried, one per step.
--
-- Helps: many groups sharing links in one phase, e.g. on layouts/default.yaml
--   wafertop tune --policy inject_delay --strategy DP64,TATP4 \
--     --model tests/fixtures/models/policy-small.yaml
-- (the hottest link goes from 10.5 % to 10.3 % of the step by step 4, 9.6 % by
-- step 8, the step within 10 %; delaying dp.allreduce is tried first and undone).
local trial = require "trial"

local fastest
local t = trial.new(function(r)
  fastest = math.min(fastest or r.step_time_s, r.step_time_s)
  if r.step_time_s > 1.10 * fastest then return math.huge end
  return r.max_link_util
end)

wt.policy("inject_delay", {
  help = "splits the hottest phase into two waves",
  on_step = function(session, r)
    if t:judge(r, session) ~= "ready" then return end
    local hottest
    for _, p in ipairs(r:phases()) do
      if p.max_link_util > 0 and not t:was_tried(p.name)
          and (not hottest or p.max_link_util > hottest.max_link_util) then
        hottest = p
      end
    end
    if hottest then
      t:try(session, hottest.name, function(s) s:delay(hottest.name, 2) end,
        function(s) s:delay(hottest.name, 1) end)
    end
  end,
})
