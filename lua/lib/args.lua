-- args: "--flag value" arguments for wafertop commands.
--
--   local args = require "args"
--   local o = args.parse(words, "link_util", {group = "", top = 10, phase = "", format = "table"})
--
-- The spec's values are the defaults; a number default makes the flag take
-- numbers. "--flag=value" works too. An unknown flag, a missing value or a
-- value of the wrong type raises an error that names the command and lists
-- its flags.
local M = {}

local function flag_list(spec)
  local names = {}
  for k in pairs(spec) do names[#names + 1] = "--" .. k:gsub("_", "-") end
  table.sort(names)
  return table.concat(names, ", ")
end

function M.parse(words, cmd, spec)
  local out = {}
  for k, v in pairs(spec) do out[k] = v end
  local i = 1
  while i <= #words do
    local word = words[i]
    local name, value = word:match("^%-%-([%w_%-]+)=(.*)$")
    if not name then name = word:match("^%-%-([%w_%-]+)$") end
    if not name then
      error(string.format("%s: unexpected argument '%s' (flags: %s)", cmd, word, flag_list(spec)), 0)
    end
    local key = name:gsub("%-", "_")
    if spec[key] == nil then
      error(string.format("%s: unknown flag '--%s' (flags: %s)", cmd, name, flag_list(spec)), 0)
    end
    if value == nil then
      i = i + 1
      value = words[i]
      if value == nil then error(string.format("%s: --%s needs a value", cmd, name), 0) end
    end
    if type(spec[key]) == "number" then
      local n = tonumber(value)
      if not n then error(string.format("%s: --%s takes a number, not '%s'", cmd, name, value), 0) end
      value = n
    end
    out[key] = value
    i = i + 1
  end
  return out
end

-- "WxH" -> w, h (positive whole numbers), or an error naming the flag.
function M.size(text, cmd, flag)
  local w, h = text:match("^(%d+)[xX](%d+)$")
  w, h = tonumber(w), tonumber(h)
  if not w or w < 1 or h < 1 then
    error(string.format("%s: --%s takes WxH, as 8x8, not '%s'", cmd, flag, text), 0)
  end
  return w, h
end

-- One of the allowed words, or an error.
function M.choice(value, cmd, flag, allowed)
  for _, a in ipairs(allowed) do if a == value then return value end end
  error(string.format("%s: --%s takes %s, not '%s'", cmd, flag, table.concat(allowed, " or "), value), 0)
end

return M
