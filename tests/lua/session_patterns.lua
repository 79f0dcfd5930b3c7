-- A session tuned per phase (a routing and a number of waves each) routes
-- more communication patterns than a plain step; this once overflowed a
-- fixed table and read the error as "no such pass", recursing until the
-- stack overflowed. The step must now succeed, and the tuning must show.
local check = require "check"

local s = wt.session{strategy = "DP2,TP2,SP2,PP2,TATP4x2"}
local r = s:step()
local modes = {"xy", "yx", "balanced"}
local n, kept = 0, {}
for i, p in ipairs(r:phases()) do
  s:set_routing(p.name, modes[i % 3 + 1])
  s:delay(p.name, 1 + i % 4)
  kept[p.name] = modes[i % 3 + 1] == r.strategy.routing
  n = i
end
check.eq(n > 10, true, "the strategy has many phases")
local ok, tuned = pcall(s.step, s)
check.eq(ok, true, "the tuned step: " .. tostring(tuned))
-- waves run one after another: a phase whose routing stayed cannot get faster
local before = {}
for _, p in ipairs(r:phases()) do before[p.name] = p.time_s end
local compared = 0
for _, p in ipairs(tuned:phases()) do
  if kept[p.name] then
    check.eq(p.time_s >= before[p.name] * (1 - 1e-12), true, "phase " .. p.name .. " not faster with waves")
    compared = compared + 1
  end
end
check.eq(compared > 3, true, "phases kept on their routing")
print("session_patterns: ok")
