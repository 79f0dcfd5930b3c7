-- The aggregated views (r:link_groups, r:top_links, r:top_units,
-- r:units_summary, r:hot_links with a limit, r:link) equal what a script
-- computes from r:links() and r:units() on a small mesh, to the bit: the
-- tiles sum their links in the same order. The views read only the loaded
-- links: results that load the whole mesh, a few links, and a faulty mesh.
local check = require "check"

local r = wt.eval{strategy = "DP4,TP2,SP2,PP2,TATP4", placement = "linear"}
local links, units = r:links(), r:units()

local function by_link(key)
  return function(a, b)
    if a[key] ~= b[key] then return a[key] > b[key] end
    if a.y ~= b.y then return a.y < b.y end
    if a.x ~= b.x then return a.x < b.x end
    return a.dir < b.dir
  end
end

-- r's tiles and top lists against its links, as a script computes them
-- (top: how many the top lists hold).
local function check_links(r, what, top_n)
  local links = r:links()
  for _, v in ipairs{{over = "peak", key = "peak_util"}, {over = "step", key = "util"},
                     {phase = "dp.allreduce", key = "util"}, {phase = "fwd.attn.qkv", key = "util"}} do
    local mine = v.phase and r:links{phase = v.phase} or links
    for _, size in ipairs{{3, 5}, {4, 4}, {16, 16}, {1, 1}, {20, 3}} do
      local w, h = size[1], size[2]
      local g = r:link_groups{w = w, h = h, over = v.over, phase = v.phase}
      check.eq(g.nx, (16 + w - 1) // w, "nx")
      check.eq(g.ny, (16 + h - 1) // h, "ny")
      local sum, n, max = {}, {}, {}
      for _, l in ipairs(mine) do
        if not l.dead then
          local i = (l.y // h) * g.nx + l.x // w + 1
          sum[i], n[i] = (sum[i] or 0) + l[v.key], (n[i] or 0) + 1
          max[i] = math.max(max[i] or 0, l[v.key])
        end
      end
      for i = 1, g.nx * g.ny do
        check.eq(g.links[i], n[i] or 0, "links of tile " .. i)
        check.eq(g.mean[i], n[i] and sum[i] / n[i] or 0, what .. " " .. v.key .. " mean of tile " .. i)
        check.eq(g.max[i], max[i] or 0, what .. " " .. v.key .. " max of tile " .. i)
      end
    end
    local sorted = {}
    for i, l in ipairs(mine) do sorted[i] = l end
    table.sort(sorted, by_link(v.key))
    -- also just past the links above 0: those at 0 follow by y, x, direction,
    -- whether a pattern loads them or not
    local above = 0
    for _, l in ipairs(mine) do above = above + (l[v.key] > 0 and 1 or 0) end
    for _, n in ipairs{top_n, above + 1, above + 3} do
      local top = r:top_links{n = n, over = v.over, phase = v.phase}
      check.eq(#top, n, what .. " top_links n")
      for i, l in ipairs(top) do
        for _, k in ipairs{"x", "y", "dir", "bytes", "util", "peak_util", "hot_s", "dead"} do
          check.eq(l[k], sorted[i][k], what .. " " .. v.key .. " top " .. n .. " link " .. i .. " " .. k)
        end
      end
    end
  end
end
check_links(r, "the whole mesh", 25)
-- two units of the 16x16 mesh: most links carry nothing, and a top list
-- longer than the loaded links goes on with links at 0 by y, x, direction
local small = wt.eval{strategy = "DP2", placement = "linear"}
local loaded = 0
for _, l in ipairs(small:links()) do loaded = loaded + (l.bytes > 0 and 1 or 0) end
check.eq(loaded > 0 and loaded < 20, true, "DP2 loads a few links: " .. loaded)
check_links(small, "DP2", 60)
-- links a pattern loads at 0 in one phase (the DP link between the TP
-- groups, in a TP phase) rank after the dead link 0,0,S no pattern loads
check_links(wt.eval{layout = "tests/fixtures/layouts/faults.yaml", strategy = "DP2,TP4", placement = "linear"},
  "DP2,TP4 on a faulty mesh", 20)
check.eq(#r:top_links{n = 5000}, #links, "top_links stops at the links there are")
check.eq(#r:top_links{n = 0}, 0, "top_links n = 0")
check.eq(r:link_groups().w, 1, "the default tile on a 16x16 mesh is 1x1")
check.raises(function() r:link_groups{over = "mean"} end, "over is peak or step", "bad over")
check.raises(function() r:link_groups{phase = "nope"} end, "no phase 'nope'", "bad phase")
check.raises(function() r:link_groups{w = 0, h = 2} end, "at least 1", "bad tile")

for _, by in ipairs{"compute_util", "memory"} do
  local sorted = {}
  for i, u in ipairs(units) do sorted[i] = u end
  table.sort(sorted, function(a, b)
    if a[by] ~= b[by] then return a[by] > b[by] end
    return a.y * 1e9 + a.x < b.y * 1e9 + b.x
  end)
  local top = r:top_units{n = 100, by = by}
  check.eq(#top, 100, "top_units n")
  for i, u in ipairs(top) do
    for _, k in ipairs{"x", "y", "used", "dead", "rank", "stage", "compute_util", "memory"} do
      check.eq(u[k], sorted[i][k], by .. " top unit " .. i .. " " .. k)
    end
  end
end
check.raises(function() r:top_units{by = "rank"} end, "by is compute_util or memory", "bad by")

local s, used, idle = r:units_summary(), 0, 0
for _, u in ipairs(units) do
  if u.used then used = used + 1 else idle = idle + 1 end
end
check.eq(s.units, #units, "units")
check.eq(s.used, used, "used")
check.eq(s.idle, idle, "idle")
check.eq(s.dead, 0, "dead")

local all, n = r:hot_links(0.05)
local some, n2 = r:hot_links(0.05, {limit = 3})
check.eq(n, #all, "hot_links counts what it lists")
check.eq(n2, n, "a limit keeps the count")
check.eq(#some, math.min(3, n), "a limit caps the list")
for i, l in ipairs(some) do check.eq(l.peak_util, all[i].peak_util, "capped hot link " .. i) end
-- the hot links and r:link are those of r:links(), windows and all
local by_key, hot = {}, 0
for _, l in ipairs(links) do
  by_key[l.x .. "," .. l.y .. l.dir] = l
  hot = hot + (l.peak_util >= 0.05 and 1 or 0)
end
check.eq(n, hot, "hot_links counts the links at or above the threshold")
for i, l in ipairs(all) do
  local want = by_key[l.x .. "," .. l.y .. l.dir]
  for _, k in ipairs{"bytes", "util", "peak_util", "hot_s"} do check.eq(l[k], want[k], "hot link " .. i .. " " .. k) end
  local one = r:link(l.x, l.y, l.dir)
  for _, k in ipairs{"bytes", "util", "peak_util", "hot_s"} do check.eq(one[k], want[k], "r:link " .. i .. " " .. k) end
end
check.done("views")
