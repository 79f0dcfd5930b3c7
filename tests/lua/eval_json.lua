-- wt.eval fields equal `wafertop eval --format json`, every key, phases too.
-- args: layout model strategy json
local check = require "check"
local json = require "json"
local layout, model, strategy, text = ...
local want = json.decode(text)
local r = wt.eval{layout = layout, model = model, strategy = strategy}

local n = 0
for key, v in pairs(want) do
  if key == "strategy" or key == "memory" then
    for k, w in pairs(v) do check.eq(r[key][k], w, key .. "." .. k); n = n + 1 end
  elseif key == "phases" then
    check.eq(#r.phases, #v, "phase count")
    for i, p in ipairs(v) do
      for k, w in pairs(p) do check.eq(r.phases[i][k], w, "phases[" .. i .. "]." .. k); n = n + 1 end
    end
  elseif key == "hot_links" then
    check.eq(#r:hot_links(), v, "hot_links") -- a method in Lua; the count in JSON
  else
    check.eq(r[key], v, key)
    n = n + 1
  end
end
assert(n > 100, "compared only " .. n .. " values")
check.done("eval_json")
