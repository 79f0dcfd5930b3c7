-- link_util: link utilisation by tile, then the hottest links.
--
-- The operators' monitor (`wsc-monitor --metric link_util --group 12x12`) as
-- a wafertop command. The mesh is cut into WxH tiles; a tile's figures are the
-- mean and the max utilisation of the usable links leaving its units. Rows go
-- top to bottom (y ascending). A link's figure is its busiest window's
-- utilisation (--over peak, the default: what a monitor sampling over
-- --window sees) or its average over the step (--over step); with --phase,
-- its share of the time that phase runs.
local args = require "args"
local fmt = require "fmt"

local HELP = [[link_util [--group WxH] [--top N] [--over peak|step] [--phase NAME] [--format table|csv]
  link utilisation by WxH tile (mean / max %), then the N hottest links;
  each link's busiest window (peak, the default) or its step average (step)
  default group: 1x1 when the mesh is at most 32x32, else 8x8; --top 10]]

local function tiles(links, key, gw, gh)
  local layout_w, layout_h = 0, 0
  for _, l in ipairs(links) do
    layout_w = math.max(layout_w, l.x + 1)
    layout_h = math.max(layout_h, l.y + 1)
  end
  local nx, ny = (layout_w + gw - 1) // gw, (layout_h + gh - 1) // gh
  local grid = {}
  for ty = 0, ny - 1 do
    grid[ty] = {}
    for tx = 0, nx - 1 do grid[ty][tx] = {sum = 0, n = 0, max = 0} end
  end
  for _, l in ipairs(links) do
    if not l.dead then
      local t = grid[l.y // gh][l.x // gw]
      t.sum, t.n, t.max = t.sum + l[key], t.n + 1, math.max(t.max, l[key])
    end
  end
  return grid, nx, ny
end

wt.command("link_util", function(words, ctx)
  local o = args.parse(words, "link_util", {group = "", top = 10, over = "peak", phase = "", format = "table"})
  args.choice(o.format, "link_util", "format", {"table", "csv"})
  args.choice(o.over, "link_util", "over", {"peak", "step"})
  local key = (o.phase == "" and o.over == "peak") and "peak_util" or "util"
  local r = ctx.result
  local links = o.phase ~= "" and r:links{phase = o.phase} or r:links()
  local w, h = 1, 1
  if o.group ~= "" then
    w, h = args.size(o.group, "link_util", "group")
  else
    local mw, mh = 0, 0
    for _, l in ipairs(links) do mw, mh = math.max(mw, l.x + 1), math.max(mh, l.y + 1) end
    if mw > 32 or mh > 32 then w, h = 8, 8 end
  end
  local grid, nx, ny = tiles(links, key, w, h)

  if o.format == "csv" then
    wt.print("tile_x,tile_y,mean_util,max_util")
    for ty = 0, ny - 1 do
      for tx = 0, nx - 1 do
        local t = grid[ty][tx]
        wt.print(string.format("%d,%d,%.6f,%.6f", tx, ty, t.n > 0 and t.sum / t.n or 0, t.max))
      end
    end
    return
  end

  wt.print(string.format("link utilisation (%%) by %dx%d tile, mean/max, %s", w, h,
    o.phase ~= "" and ("during " .. o.phase) or key == "util" and "over the step" or "busiest window"))
  local rows = {{"y\\x"}}
  for tx = 0, nx - 1 do rows[1][tx + 2] = tostring(tx) end
  for ty = 0, ny - 1 do
    local row = {tostring(ty)}
    for tx = 0, nx - 1 do
      local t = grid[ty][tx]
      row[tx + 2] = string.format("%.0f/%.0f", t.n > 0 and 100 * t.sum / t.n or 0, 100 * t.max)
    end
    rows[#rows + 1] = row
  end
  fmt.table(rows, wt.print)

  table.sort(links, function(a, b)
    if a[key] ~= b[key] then return a[key] > b[key] end
    if a.y ~= b.y then return a.y < b.y end
    if a.x ~= b.x then return a.x < b.x end
    return a.dir < b.dir
  end)
  wt.print(string.format("hottest %d links:", math.min(o.top, #links)))
  for i = 1, math.min(o.top, #links) do
    local l = links[i]
    wt.print(string.format("%d,%d,%s %.1f%% %.6g", l.x, l.y, l.dir, 100 * l[key], l.bytes))
  end
end, HELP)
