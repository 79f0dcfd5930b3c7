-- The network model of a script: wt.nets(), and net = NAME on wt.eval,
-- wt.session, wt.search and wt.route, with the error a name that is no
-- model raises.
local check = require "check"

local nets, known = wt.nets(), {}
check.eq(#nets >= 1, true, "wt.nets lists the models")
for i, n in ipairs(nets) do
  assert(i == 1 or nets[i - 1].name < n.name, "wt.nets sorted by name")
  check.eq(type(n.help), "string", "help of " .. n.name)
  known[#known + 1] = n.name
end
check.eq(table.concat(known, " "):find("%f[%w]bottleneck%f[%W]") ~= nil, true, "wt.nets lists bottleneck")

-- "net 'x' is not one of a, b": every model named
local function refuses(fn, what)
  local ok, err = pcall(fn)
  check.eq(ok, false, what .. " refuses net 'x'")
  check.eq(tostring(err):find("net 'x' is not one of ", 1, true) ~= nil, true, what .. ": " .. tostring(err))
  for _, name in ipairs(known) do
    check.eq(tostring(err):find(name, 1, true) ~= nil, true, what .. " names " .. name)
  end
end

local r = wt.eval{net = "bottleneck"}
check.eq(r.net, "bottleneck", "wt.eval's result names its model")
check.eq(wt.eval{net = "BOTTLENECK"}.net, "bottleneck", "any case")
refuses(function() wt.eval{net = "x"} end, "wt.eval")
check.raises(function() wt.eval{net = 1} end, "net must be a string", "wt.eval net of another type")

local S = wt.session{net = "bottleneck"}
check.eq(S:step().net, "bottleneck", "a session's steps")
refuses(function() wt.session{net = "x"} end, "wt.session")

local small = {layout = "dojo-tile", model = "tests/fixtures/models/search-small.yaml", top = 1, baselines = false}
small.net = "bottleneck"
check.eq(wt.search(small).best.net, "bottleneck", "the search's results")
small.net = "x"
refuses(function() wt.search(small) end, "wt.search")

local flows = {{src = {0, 0}, dst = {2, 0}, bytes = 100}}
check.eq(#wt.route{net = "bottleneck", flows = flows}.links, 2, "wt.route takes net")
refuses(function() wt.route{net = "x", flows = flows} end, "wt.route")

check.done("net")
