-- session_fuzz: no script can crash wafertop through a session. Sessions on
-- several layouts take random actions (lib/fuzz.lua) between their steps,
-- and every action and step is checked. A failure prints its seed and the
-- actions that led to it.
--
-- usage: wafertop run --lua-path tests/lua --lua-budget 2e8 tests/lua/session_fuzz.lua SEED [ROUNDS [SCALE]] [stats]
--   runs every scenario below with seeds SEED .. SEED+ROUNDS-1 (default 1
--   round), SCALE times its steps (default 1); stats: how often each action
--   ran and was refused. A crash leaves no message: add --unsafe-lua and the
--   word trace to see each action on stderr before it runs.
local fuzz = require "fuzz"

local words, trace, stats = {}, nil, false
for _, a in ipairs(arg) do
  if a == "trace" then
    trace = io and io.stderr or error("trace writes to io.stderr: run with --unsafe-lua")
  elseif a == "stats" then
    stats = true
  else
    words[#words + 1] = a
  end
end
local seed = math.tointeger(tonumber(words[1] or "1")) or error("SEED must be a whole number")
local rounds = math.tointeger(tonumber(words[2] or "1")) or error("ROUNDS must be a whole number")
local scale = tonumber(words[3] or "1") or error("SCALE must be a number")

local models = "tests/fixtures/models/"
local SCENARIOS = {
  {layout = "dojo-tile", model = models .. "search-small.yaml", strategy = "DP4,TATP4", steps = 1000},
  {layout = "tests/fixtures/layouts/column.yaml", model = models .. "policy-wide.yaml", strategy = "DP16,TATP4x1",
   steps = 1000},
  {layout = "wsc-6x9", model = models .. "policy-small.yaml", strategy = "DP4,TATP9", steps = 800},
  {layout = "tests/fixtures/layouts/multiwafer-small.yaml", model = models .. "policy-small.yaml",
   strategy = "DP8,TATP4", placement = "snake", steps = 800},
  {layout = "default", model = "gpt3-6.7b", strategy = "DP8,TATP16", steps = 200},
}

-- What wt.session must refuse, whatever the scenario.
local BAD_SESSIONS = {
  {jitter = 1}, {jitter = -0.1}, {jitter = 0 / 0}, {straggler = 2}, {straggler = 0 / 0}, {seed = 1.5},
  {strategy = "garbage"}, {layout = "no-such-layout"}, {model = "no-such-model"}, {nonsense = 1},
  {placement = "spiral"},
}

-- A new session of scenario sc, its options drawn by f.
local function open(sc, f)
  local o = {layout = sc.layout, model = sc.model, strategy = sc.strategy, placement = sc.placement,
             seed = f:int(1, 1 << 30), jitter = f:pick{0, 0, 0.05, 0.3}, straggler = f:pick{0, 0, 0.01, 0.2}}
  f:note(string.format("s = wt.session%s", fuzz.show(o)))
  return wt.session(o)
end

-- Runs scenario sc with seed n, which `again` repeats; returns how many
-- steps ran and their signature (a hash of each step's time or refusal), to
-- compare runs. A number, not a string of the times: what the first run
-- keeps must not change the memory the second has, or a step squeezed near
-- the cap may be refused in one and not the other.
-- runs.
local function run(sc, n, again)
  local lay = wt.layout(sc.layout)
  local dead = {}
  for x = 0, lay.w - 1 do
    for y = 0, lay.h - 1 do
      if lay:dead(x, y) then dead[x .. "," .. y] = true end
    end
  end
  local f = fuzz.new{seed = n, w = lay.w, h = lay.h, dead = dead, strategy = sc.strategy, again = again,
                     squeeze = 0.003}
  if trace then
    local note = f.note
    f.note = function(self, what)
      trace:write(what, "\n")
      note(self, what)
    end
  end
  for _, bad in ipairs(BAD_SESSIONS) do
    local o = {layout = sc.layout, model = sc.model, strategy = sc.strategy}
    for k, v in pairs(bad) do o[k] = v end
    f:note("wt.session" .. fuzz.show(o))
    local ok, err = pcall(wt.session, o)
    f:check(not ok and type(err) == "string" and err ~= "", "wt.session" .. fuzz.show(o) .. ": accepted")
  end
  local s = open(sc, f)
  local sig = 0
  local steps = math.max(1, math.floor(sc.steps * scale))
  while f.steps < steps do
    if f:chance(0.002) then -- a fresh session; results of the old one are still held
      s = open(sc, f)
      f:restart(sc.strategy)
    end
    local name, ok = f:act(s)
    if name == "step" then sig = sig * 1000003 ~ (ok and string.unpack("<i8", string.pack("<d", f.last_time)) or 1) end
  end
  if stats then
    for name, c in pairs(f.counts) do print(sc.layout, name, c[1], c[2]) end
  end
  return steps, sig
end

local total = 0
for n = seed, seed + rounds - 1 do
  for i, sc in ipairs(SCENARIOS) do
    local again = string.format("session_fuzz.lua %d 1 %s, scenario %d (%s)", n, scale, i, sc.layout)
    local steps, sig = run(sc, n * 100 + i, again)
    total = total + steps
    if n == seed and i == 1 then -- the same seed, the same run
      local _, sig2 = run(sc, n * 100 + i, again)
      if sig2 ~= sig then error(string.format("seed %d on %s: a second run differs", n * 100 + i, sc.layout)) end
      total = total + steps
    end
  end
end
print(string.format("session_fuzz: %d steps, seeds %d..%d: ok", total, seed, seed + rounds - 1))
