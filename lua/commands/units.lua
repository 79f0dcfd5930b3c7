-- units: the units of the mesh by compute utilisation or memory (counted and
-- ranked in C by r:units_summary and r:top_units: a wafer has 850k units).
local args = require "args"
local fmt = require "fmt"

wt.command("units", function(words, ctx)
  local o = args.parse(words, "units", {sort = "util", top = 20})
  args.choice(o.sort, "units", "sort", {"util", "memory"})
  args.count(o.top, "units", "top")
  local r = ctx.result
  local s = r:units_summary()
  local units = r:top_units{n = o.top, by = o.sort == "util" and "compute_util" or "memory"}
  wt.print(string.format("%d units: %d used, %d idle, %d dead; top %d by %s", s.units, s.used, s.idle, s.dead,
    math.min(o.top, s.units), o.sort))
  local rows = {{"unit", "rank", "stage", "compute", "memory"}}
  for _, u in ipairs(units) do
    rows[#rows + 1] = {string.format("%d,%d", u.x, u.y), u.used and tostring(u.rank) or "-",
      u.used and tostring(u.stage) or "-", fmt.pct(u.compute_util), fmt.bytes(u.memory)}
  end
  fmt.table(rows, wt.print)
end, [[units [--sort util|memory] [--top N]
  units by compute utilisation or memory, highest first (default util, top 20)]])
