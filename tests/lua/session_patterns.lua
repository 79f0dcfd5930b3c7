-- A session tuned per phase (a routing and a number of waves each) routes
-- more communication patterns than a plain step; this once overflowed a
-- fixed table and read the error as "no such pass", recursing until the
-- stack overflowed. The step must now succeed, and the tuning must show.
local check = require "check"

local s = wt.session{strategy = "DP2,TP2,SP2,PP2,TATP4x2"}
local r = s:step()
local modes = {"xy", "yx", "balanced"}
local n = 0
for i, p in ipairs(r:phases()) do
  s:set_routing(p.name, modes[i % 3 + 1])
  s:delay(p.name, 1 + i % 4)
  n = i
end
check.eq(n > 10, true, "the strategy has many phases")
local ok, tuned = pcall(s.step, s)
check.eq(ok, true, "the tuned step: " .. tostring(tuned))
-- waves run one after another: no phase can get faster than it was
local before = {}
for _, p in ipairs(r:phases()) do before[p.name] = p.time_s end
for _, p in ipairs(tuned:phases()) do
  check.eq(p.time_s >= before[p.name] * (1 - 1e-12), true, "phase " .. p.name .. " not faster with waves")
end
check.eq(tuned.step_time_s > r.step_time_s, true, "waves slow the step down")
print("session_patterns: ok")
