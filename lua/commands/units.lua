-- units: the units of the mesh by compute utilisation or memory.
local args = require "args"
local fmt = require "fmt"

wt.command("units", function(words, ctx)
  local o = args.parse(words, "units", {sort = "util", top = 20})
  args.choice(o.sort, "units", "sort", {"util", "memory"})
  local units = ctx.result:units()
  local key = o.sort == "util" and "compute_util" or "memory"
  table.sort(units, function(a, b)
    if a[key] ~= b[key] then return a[key] > b[key] end
    return a.y * 1e9 + a.x < b.y * 1e9 + b.x
  end)
  local used, idle, dead = 0, 0, 0
  for _, u in ipairs(units) do
    if u.dead then dead = dead + 1 elseif u.used then used = used + 1 else idle = idle + 1 end
  end
  wt.print(string.format("%d units: %d used, %d idle, %d dead; top %d by %s", #units, used, idle, dead,
    math.min(o.top, #units), o.sort))
  local rows = {{"unit", "rank", "stage", "compute", "memory"}}
  for i = 1, math.min(o.top, #units) do
    local u = units[i]
    rows[#rows + 1] = {string.format("%d,%d", u.x, u.y), u.used and tostring(u.rank) or "-",
      u.used and tostring(u.stage) or "-", fmt.pct(u.compute_util), fmt.bytes(u.memory)}
  end
  fmt.table(rows, wt.print)
end, [[units [--sort util|memory] [--top N]
  units by compute utilisation or memory, highest first (default util, top 20)]])
