-- `wafertop compare A B --format json` against `wafertop eval` of each side:
-- a and b are eval's documents, every key; the ratios are b / a of every
-- number; each phase's differences are b - a, the phases matched by name.
-- args: compare's JSON, eval A's JSON, eval B's JSON
local check = require "check"
local json = require "json"
local doc, want_a, want_b = json.decode(select(1, ...)), json.decode(select(2, ...)), json.decode(select(3, ...))

local n = 0
local function same(got, want, what)
  if type(want) == "table" then
    check.eq(type(got), "table", what)
    for k, v in pairs(want) do same(got[k], v, what .. "." .. k) end
    for k in pairs(got) do check.eq(want[k] ~= nil, true, what .. "." .. k .. " (not in eval)") end
  else
    check.eq(got, want, what)
    n = n + 1
  end
end
same(doc.a, want_a, "a")
same(doc.b, want_b, "b")

for k, v in pairs(doc.ratio) do check.eq(v, want_b[k] / want_a[k], "ratio." .. k) end
check.near(doc.ratio.step_time_s, want_b.step_time_s / want_a.step_time_s, 0, "ratio.step_time_s")
check.eq(doc.memory_ratio.total, want_b.memory.total / want_a.memory.total, "memory_ratio.total")

local function by_name(phases)
  local t = {}
  for _, p in ipairs(phases) do t[p.name] = p end
  return t
end
local pa, pb = by_name(want_a.phases), by_name(want_b.phases)
local seen = 0
for _, p in ipairs(doc.phases) do
  check.eq(p.in_a, pa[p.name] ~= nil, p.name .. ".in_a")
  check.eq(p.in_b, pb[p.name] ~= nil, p.name .. ".in_b")
  if p.in_a and p.in_b then
    for _, k in ipairs{"time_s", "comm_s", "max_link_util", "compute_s", "share"} do
      check.eq(p.diff[k], pb[p.name][k] - pa[p.name][k], p.name .. ".diff." .. k)
    end
    seen = seen + 1
  else
    check.eq(p.diff, nil, p.name .. ".diff (one side lacks it)")
  end
end
check.eq(#doc.phases >= #want_a.phases and #doc.phases >= #want_b.phases, true, "every phase of both")
assert(seen > 5 and n > 100, "compared only " .. seen .. " phases, " .. n .. " values")
check.done("compare_json")
