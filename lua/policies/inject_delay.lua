-- inject_delay: stagger colliding groups in time. Of the phases loading
-- the hottest link (its busiest window), the one that runs it hottest has
-- its groups split into two waves that run one after another, so where
-- its groups collide each wave finds the links half as loaded, and where
-- they do not each link carries traffic half the time. Kept while fewer
-- links are hot (then a cooler busiest window) and the step stays within
-- 10 % of the fastest seen; otherwise the next phase on that link is
-- tried, one a step.
--
-- Helps: a DP all-reduce that makes its links hot while hidden behind the
-- backward, e.g. on layouts/default.yaml
--   wafertop tune --net fluid --policy inject_delay --strategy DP8,TATP16 \
--     --model tests/fixtures/models/policy-wide.yaml --seq 256
-- (hot links 80 to 0, the busiest window 94.5 % to 49.1 %, the step 4.9 %
-- longer). It cannot make anything faster: waves move the same bytes, and
-- the phase they split takes at least as long (the last bucket, which
-- nothing hides, twice as long here).
local trial = require "trial"
local contention = require "contention"

local fastest
local t = trial.new(function(r)
  fastest = math.min(fastest or r.step_time_s, r.step_time_s)
  if r.step_time_s > 1.10 * fastest then return math.huge end
  return #r:hot_links() + r.max_peak_util + 1e-3 * r.step_time_s / fastest -- ties: the faster
end)
local exhausted = {} -- hottest links whose every phase was tried

wt.policy("inject_delay", {
  help = "splits the least critical phase on the hottest link into two waves",
  on_step = function(session, r)
    if t:judge(r, session) ~= "ready" then return end
    local hottest = r:hot_links(0)[1]
    if not hottest or exhausted[contention.key(hottest)] then return end
    for _, p in ipairs(contention.on_link(r, hottest)) do
      if not t:was_tried(p.name) then
        t:try(session, p.name, function(s) s:delay(p.name, 2) end, function(s) s:delay(p.name, 1) end)
        return
      end
    end
    exhausted[contention.key(hottest)] = true
  end,
})
