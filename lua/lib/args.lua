-- args: "--flag value" arguments for wafertop commands.
--
--   local args = require "args"
--   local o = args.parse(words, "link_util", {group = "", top = 10, phase = "", format = "table"})
--
-- The spec's values are the defaults; a number default makes the flag take
-- numbers. "--flag=value" works too. A mistake (an unknown flag, a missing
-- value, a value of the wrong kind) is one line that names the command and
-- the flag, as "link_util: --group: expected WxH (as 8x8), got 'x'": the
-- error is an object whose __tostring is that line, which the message
-- handler shows without a traceback (a traceback is for a script's bugs,
-- not for a user's typo).
local M = {}

local mistake = {__tostring = function(e) return e.line end}

-- Raises the one-line error "CMD: MESSAGE" (MESSAGE: fmt with the rest).
function M.fail(cmd, fmt, ...)
  error(setmetatable({line = cmd .. ": " .. string.format(fmt, ...)}, mistake), 0)
end

-- "CMD: --FLAG: expected EXPECTED, got 'VALUE'".
local function expected(cmd, flag, what, value)
  M.fail(cmd, "--%s: expected %s, got '%s'", flag, what, tostring(value))
end

local function flag_list(spec)
  local names = {}
  for k in pairs(spec) do names[#names + 1] = "--" .. k:gsub("_", "-") end
  table.sort(names)
  return #names > 0 and table.concat(names, ", ") or "none"
end

function M.parse(words, cmd, spec)
  local out = {}
  for k, v in pairs(spec) do out[k] = v end
  local i = 1
  while i <= #words do
    local word = words[i]
    local name, value = word:match("^%-%-([%w_%-]+)=(.*)$")
    if not name then name = word:match("^%-%-([%w_%-]+)$") end
    if not name then M.fail(cmd, "unexpected argument '%s' (flags: %s)", word, flag_list(spec)) end
    local key = name:gsub("%-", "_")
    if spec[key] == nil then M.fail(cmd, "unknown flag '--%s' (flags: %s)", name, flag_list(spec)) end
    if value == nil then
      i = i + 1
      value = words[i]
      if value == nil then M.fail(cmd, "--%s: needs a value", name) end
    end
    if type(spec[key]) == "number" then
      local n = tonumber(value)
      if not n then expected(cmd, name, "a number", value) end
      value = n
    end
    out[key] = value
    i = i + 1
  end
  return out
end

-- A whole number >= 0 (a count), or an error naming the flag.
function M.count(n, cmd, flag)
  if n < 0 or n ~= math.floor(n) then expected(cmd, flag, "a whole number >= 0", n) end
  return n
end

-- "WxH" -> w, h (positive whole numbers), or an error naming the flag.
function M.size(text, cmd, flag)
  local w, h = text:match("^(%d+)[xX](%d+)$")
  w, h = tonumber(w), tonumber(h)
  if not w or w < 1 or h < 1 then expected(cmd, flag, "WxH (as 8x8)", text) end
  return w, h
end

-- One of the allowed words, or an error.
function M.choice(value, cmd, flag, allowed)
  for _, a in ipairs(allowed) do if a == value then return value end end
  expected(cmd, flag, "one of " .. table.concat(allowed, ", "), value)
end

return M
