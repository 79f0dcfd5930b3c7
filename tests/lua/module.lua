-- The module's objects: layouts, models, strategies, results, registries.
local check = require "check"

local l = wt.layout("default")
check.eq(l.w, 16, "layout width")
check.eq(l.name, "default", "layout name")
check.eq(l.link_bandwidth, 2e12, "link bandwidth")
check.eq(l:dead(3, 4), false, "healthy unit")
check.raises(function() wt.layout("nope") end, "no layout 'nope'", "unknown layout")

local m = wt.model("6b")
check.eq(m.name, "gpt3-6.7b", "alias")
check.eq(m.layers, 32, "layers")
local tiny = wt.model{layers = 2, hidden = 64, heads = 4, vocab = 128, seq = 16, batch = 8}
check.eq(tiny.ffn, 256, "default ffn")
check.raises(function() wt.model{layers = 2, hidden = 64, heads = 3, vocab = 1, seq = 1, batch = 1} end,
  "heads 3 do not divide hidden 64", "model check")
check.raises(function() wt.model{layers = 2, colour = "red"} end, "unknown field 'colour'", "model field")

local s = wt.strategy("dp8 tatp4x8")
check.eq(s.tatp, 32, "grid size")
check.eq(s.tatp_grid, "4x8", "grid")
check.eq(wt.strategy{8, 1, 1, 1, 16}.text, "DP8,TATP16", "tuple")
check.eq(wt.strategy{tatp = 16, placement = "snake"}.placement, "snake", "option")
check.raises(function() wt.strategy("DP8,FOO2") end, "unknown dimension 'FOO'", "bad strategy")

-- eval with a model table, options, overrides, and a strategy table
local r = wt.eval{layout = l, model = tiny, strategy = {dp = 4, tatp = 4}, collective = "bidir",
                  mem = {"zero"}, chunk = 4096, microbatch = 2}
check.eq(r.strategy.collective, "bidir", "collective")
check.eq(r.strategy.mem, "zero", "mem list")
check.eq(r.strategy.chunk, 4096.0, "chunk in bytes")
check.eq(r.micro_batches, 1, "8 sequences / (DP 4 x 2)")
check.eq(#r:units(), 256, "units")
local used = 0
for _, u in ipairs(r:units()) do if u.used then used = used + 1 end end
check.eq(used, r.units_used, "used units")
check.eq(r:link(15, 0, "E"), nil, "link off the mesh")
check.raises(function() wt.eval{strategy = "TP3"} end, "TP 3 must divide", "engine refusal")
check.raises(function() wt.eval{colour = 1} end, "unknown field 'colour'", "eval field")

-- exec: an option as the command line's --exec; streaming needs a store
local st = wt.layout("tests/fixtures/layouts/store-4x4.yaml")
local rs = wt.eval{layout = st, model = tiny, strategy = "DP4,TATP4", exec = "stream"}
check.eq(rs.strategy.exec, "stream", "exec stream")
check.eq(rs.dp_time_s, 0, "no all-reduce when streaming")
assert(rs.stream_in_s > 0 and rs.stream_out_s > 0, "store transfers")
assert(rs.stream_bound == "store" or rs.stream_bound == "mesh", "stream bound")
check.eq(wt.session{layout = st, model = tiny, strategy = "DP4,TATP4", exec = "stream"}:step().strategy.exec,
  "stream", "session exec")
check.eq(wt.eval{}.strategy.exec, "resident", "exec resident by default")
check.eq(wt.eval{}.stream_bound, "", "no stream bound when resident")
check.raises(function() wt.eval{exec = "stream"} end, "has no parameter store", "exec without a store")

-- DRAM: where memory lives and what it costs, under eval JSON's names. DP4
-- of tiny: each unit holds 16 x 107136 + 2 x 39 x 1024 bytes; its 200 KB of
-- SRAM hold most of the 2 x 107136 param bytes, the rest lives in DRAM
local dr = wt.eval{layout = wt.layout("tests/fixtures/layouts/dram-3x2.yaml"), model = tiny, strategy = "DP4"}
check.eq(dr.memory.sram, 200000.0, "bytes in SRAM")
check.eq(dr.memory.dram, 16 * 107136 + 2 * 39 * 1024 - 200000.0, "bytes in DRAM")
check.eq(dr.memory.dram_params, 2 * 107136 - 200000.0, "params beyond SRAM")
check.eq(dr.memory.dram_grads, 2 * 107136.0, "grads in DRAM")
assert(dr.dram_s > dr.dram_stall_s and dr.dram_stall_s > 0, "DRAM time and its stall")
assert(dr.phases[#dr.phases].dram_s > 0, "the optimizer's DRAM time")

-- hot links are sorted, hottest first
local hot = wt.eval{strategy = "DP256"}:hot_links(0)
for i = 2, #hot do assert(hot[i - 1].peak_util >= hot[i].peak_util, "hot_links order") end
-- at threshold 0 every link of the 16x16 mesh, and no slot off its edge
check.eq(#hot, 2 * 2 * 16 * 15, "hot_links(0) counts the mesh's links")

-- the window: 100 us by default, seconds or a time text; a busiest window is
-- never below the step average
local w = {wt.eval{}, wt.eval{window = "1ms"}, wt.eval{window = 10e-3}}
check.eq(w[1].window_s, 100e-6, "default window")
check.eq(w[2].window_s, 1e-3, "window text")
check.eq(w[3].window_s, 10e-3, "window seconds")
for i = 1, 3 do assert(w[i].max_peak_util >= w[i].max_link_util, "peak below the average") end
check.eq(wt.session{window = "200us"}:step().window_s, 200e-6, "session window")
check.raises(function() wt.eval{window = 0} end, "window must be a positive time", "zero window")
check.raises(function() wt.session{window = -1} end, "window must be a positive time", "negative window")
check.raises(function() wt.eval{window = "abc"} end, "window: 'abc'", "window text")
check.raises(function() wt.eval{window = true} end, "window must be a time", "window type")

-- registries: arg[1..3] are the stock commands, policies and strategies (the
-- file names in lua/commands, lua/policies, lua/strategies, as e2e_lua.sh
-- lists them when it runs): each is registered, among whatever else is there
local function registered(kind)
  local names, list = {}, wt[kind]()
  for i, e in ipairs(list) do
    check.eq(type(e.help), "string", kind .. " " .. e.name .. " help")
    assert(i == 1 or list[i - 1].name < e.name, kind .. " sorted")
    names[e.name] = e.help
  end
  return names
end
for i, kind in ipairs({"commands", "policies", "strategies"}) do
  local names, stock = registered(kind), 0
  for name in (arg[i] or ""):gmatch("%S+") do
    stock = stock + 1
    assert(names[name], kind .. ": stock " .. name .. " is not registered")
  end
  assert(stock > 0, "no stock " .. kind .. " given as arg[" .. i .. "]")
end
wt.command("mine", function() end, "mine: a test command")
check.eq(registered("commands").mine, "mine: a test command", "command registered")
wt.policy("calm", {on_step = function() end, help = "keeps still"})
check.eq(registered("policies").calm, "keeps still", "policy registered")
check.raises(function() wt.policy("bad", {help = 1}) end, "help must be a string", "policy help")
check.raises(function() wt.policy("bad", {on_tick = print}) end, "unknown hook 'on_tick'", "policy hook")
-- the C types' metatables are out of a script's reach: calling __gc by hand
-- freed a layout that results still borrowed (a crash)
local lay = wt.layout("default")
local lr = wt.eval{layout = lay}
for _, obj in ipairs({lay, lr, wt.session{}}) do
  local mt = getmetatable(obj)
  check.eq(type(mt), "string", "metatable of " .. tostring(obj) .. " is protected")
  check.raises(function() return mt.__gc(obj) end, "attempt to call a nil value", "__gc by hand")
  check.raises(function() setmetatable(obj, {}) end, "table expected", "setmetatable on a C object")
end
check.eq(#lr:units(), 256, "the result still reads its layout")
check.eq(wt.hot, 0.9, "wt.hot")
check.done("module")
