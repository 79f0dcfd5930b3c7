-- link_util: link utilisation by tile, then the hottest links.
--
-- The operators' monitor (`wsc-monitor --metric link_util --group 12x12`) as
-- a wafertop command. The mesh is cut into WxH tiles; a tile's figures are the
-- mean and the max utilisation of the usable links leaving its units. Rows go
-- top to bottom (y ascending). A link's figure is its busiest window's
-- utilisation (--over peak, the default: what a monitor sampling over
-- --window sees) or its average over the step (--over step); with --phase,
-- its share of the time that phase runs. The tiles and the ranking come
-- from r:link_groups and r:top_links, computed in C: a wafer-scale mesh has
-- millions of links.
local args = require "args"
local fmt = require "fmt"

local HELP = [[link_util [--group WxH] [--top N] [--over peak|step] [--phase NAME] [--format table|csv]
  link utilisation by WxH tile (mean / max %), then the N hottest links;
  each link's busiest window (peak, the default) or its step average (step)
  default group: 1x1 when the mesh is at most 32x32, else 8x8; --top 10]]

wt.command("link_util", function(words, ctx)
  local o = args.parse(words, "link_util", {group = "", top = 10, over = "peak", phase = "", format = "table"})
  args.choice(o.format, "link_util", "format", {"table", "csv"})
  args.choice(o.over, "link_util", "over", {"peak", "step"})
  args.count(o.top, "link_util", "top")
  local key = (o.phase == "" and o.over == "peak") and "peak_util" or "util"
  local r = ctx.result
  if o.phase ~= "" then
    local names = {}
    for _, p in ipairs(r:phases()) do names[#names + 1] = p.name end
    args.choice(o.phase, "link_util", "phase", names)
  end
  local view = {over = o.over, phase = o.phase ~= "" and o.phase or nil}
  if o.group ~= "" then view.w, view.h = args.size(o.group, "link_util", "group") end
  local g = r:link_groups(view)

  if o.format == "csv" then
    wt.print("tile_x,tile_y,mean_util,max_util")
    for ty = 0, g.ny - 1 do
      for tx = 0, g.nx - 1 do
        local i = ty * g.nx + tx + 1
        wt.print(string.format("%d,%d,%.6f,%.6f", tx, ty, g.mean[i], g.max[i]))
      end
    end
    return
  end

  wt.print(string.format("link utilisation (%%) by %dx%d tile, mean/max, %s", g.w, g.h,
    o.phase ~= "" and ("during " .. o.phase) or key == "util" and "over the step" or "busiest window"))
  local rows = {{"y\\x"}}
  for tx = 0, g.nx - 1 do rows[1][tx + 2] = tostring(tx) end
  for ty = 0, g.ny - 1 do
    local row = {tostring(ty)}
    for tx = 0, g.nx - 1 do
      local i = ty * g.nx + tx + 1
      row[tx + 2] = string.format("%.0f/%.0f", 100 * g.mean[i], 100 * g.max[i])
    end
    rows[#rows + 1] = row
  end
  fmt.table(rows, wt.print)

  view.n = o.top
  local links = r:top_links(view)
  wt.print(string.format("hottest %d links:", math.min(o.top, #links)))
  for _, l in ipairs(links) do
    wt.print(string.format("%d,%d,%s %.1f%% %s", l.x, l.y, l.dir, 100 * l[key], fmt.bytes(l.bytes)))
  end
end, HELP)
