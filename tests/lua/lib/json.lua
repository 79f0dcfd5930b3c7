-- json: a small JSON reader for the tests (objects, arrays, strings without
-- escapes beyond \" and \\, numbers, true, false, null).
local M = {}

local function skip(s, i) return s:find("[^ \t\r\n]", i) or #s + 1 end

local value

local function string_at(s, i)
  local j, out = i + 1, {}
  while true do
    local c = s:sub(j, j)
    if c == '"' then return table.concat(out), j + 1 end
    if c == "\\" then j = j + 1; c = s:sub(j, j) end
    if c == "" then error("json: unterminated string") end
    out[#out + 1] = c
    j = j + 1
  end
end

function value(s, i)
  i = skip(s, i)
  local c = s:sub(i, i)
  if c == "{" then
    local obj = {}
    i = skip(s, i + 1)
    if s:sub(i, i) == "}" then return obj, i + 1 end
    while true do
      local k
      k, i = string_at(s, skip(s, i))
      i = skip(s, i)
      assert(s:sub(i, i) == ":", "json: ':' expected")
      obj[k], i = value(s, i + 1)
      i = skip(s, i)
      local d = s:sub(i, i)
      if d == "}" then return obj, i + 1 end
      assert(d == ",", "json: ',' expected")
      i = i + 1
    end
  elseif c == "[" then
    local arr = {}
    i = skip(s, i + 1)
    if s:sub(i, i) == "]" then return arr, i + 1 end
    while true do
      arr[#arr + 1], i = value(s, i)
      i = skip(s, i)
      local d = s:sub(i, i)
      if d == "]" then return arr, i + 1 end
      assert(d == ",", "json: ',' expected")
      i = i + 1
    end
  elseif c == '"' then
    return string_at(s, i)
  elseif s:sub(i, i + 3) == "true" then return true, i + 4
  elseif s:sub(i, i + 4) == "false" then return false, i + 5
  elseif s:sub(i, i + 3) == "null" then return nil, i + 4
  end
  local num = s:match("^-?[%d.eE+-]+", i)
  assert(num, "json: value expected at " .. i)
  return math.tointeger(tonumber(num)) or tonumber(num), i + #num
end

function M.decode(s)
  local v = value(s, 1)
  return v
end

return M
