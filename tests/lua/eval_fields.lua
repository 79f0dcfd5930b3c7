-- wt.eval fields equal `wafertop eval --format csv` column by column.
-- args: layout model strategy header row (the CSV's two lines)
local check = require "check"
local layout, model, strategy, header, row = ...

local r = wt.eval{layout = layout, model = model, strategy = strategy}

-- The CSV's own formatting: %.10g for numbers, whole numbers, true/false.
local function csv(v)
  if math.type(v) == "integer" then return string.format("%d", v) end
  if type(v) == "number" then return string.format("%.10g", v) end
  if type(v) == "boolean" then return tostring(v) end
  if v:find(",") then return '"' .. v .. '"' end
  return v
end

local keys, values = {}, {}
for k in header:gmatch("[^,]+") do keys[#keys + 1] = k end
local rest = row
while #rest > 0 do
  local v
  if rest:sub(1, 1) == '"' then
    v = rest:match('^("[^"]*")')
  else
    v = rest:match("^([^,]*)")
  end
  values[#values + 1] = v
  rest = rest:sub(#v + 2)
end
check.eq(#values, #keys, "columns")

for i, key in ipairs(keys) do
  local section, field = key:match("^(%w+)%.(.+)$")
  local v
  if section then v = r[section][field] else v = r[key] end
  -- hot_links is a method in Lua; the JSON count is its length at 0.90
  if key == "hot_links" then v = #r:hot_links() end
  check.eq(csv(v), values[i], key)
end
check.eq(r.strategy.text, "DP8,TATP16", "strategy text")
check.eq(r:phases()[1].name, r.phases[1].name, "phases as method and field")
check.eq(r:memory().total, r.memory.total, "memory as method and field")
check.done("eval_fields")
