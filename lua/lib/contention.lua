-- contention: who loads which link, from a result, for policies that act
-- where traffic collides.
--
--   local contention = require "contention"
--   local dp = contention.links_of(r, "dp.allreduce")   -- {["3,0,E"] = link, ...}
--   for _, p in ipairs(contention.on_link(r, r:hot_links(0)[1])) do print(p.name, p.util) end
local M = {}

-- A link's key: "x,y,DIR", as a phase's busiest_link reads.
function M.key(l) return l.x .. "," .. l.y .. "," .. l.dir end

-- The links phase `name` loads, as key -> its link (r:links{phase = name}:
-- bytes of that phase, util while it runs).
function M.links_of(r, name)
  local set = {}
  for _, l in ipairs(r:links{phase = name}) do
    if l.bytes > 0 then set[M.key(l)] = l end
  end
  return set
end

-- The phases that load link l, the one that runs it hottest first, as
-- {name, bytes, util}.
function M.on_link(r, l)
  local k, out = M.key(l), {}
  for _, p in ipairs(r:phases()) do
    local on = p.max_link_util > 0 and M.links_of(r, p.name)[k]
    if on then out[#out + 1] = {name = p.name, bytes = on.bytes, util = on.util} end
  end
  table.sort(out, function(a, b) return a.util > b.util end)
  return out
end

return M
