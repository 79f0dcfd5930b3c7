-- fmt: numbers for people (bytes, seconds, percentages) and aligned tables.
local M = {}

-- Three significant digits, never an exponent: %.3g writes 1234 as 1.23e+03.
local function num(v)
  if math.abs(v) >= 999.5 then return string.format("%.0f", v) end
  return string.format("%.3g", v)
end

local function scaled(v, units, step)
  local i = 1
  while math.abs(v) >= step - 0.5 and i < #units do -- 999.7 KB shows as 1 MB
    v = v / step
    i = i + 1
  end
  return num(v) .. " " .. units[i]
end

function M.bytes(v) return scaled(v, {"B", "KB", "MB", "GB", "TB", "PB"}, 1000) end

function M.time(s)
  if s == 0 then return "0 s" end
  if math.abs(s) >= 0.9995 then return num(s) .. " s" end -- 999.7 ms shows as 1 s
  if math.abs(s) >= 0.9995e-3 then return num(s * 1e3) .. " ms" end
  if math.abs(s) >= 0.9995e-6 then return num(s * 1e6) .. " us" end
  return num(s * 1e9) .. " ns"
end

function M.pct(x) return string.format("%.1f%%", 100 * x) end

-- Prints rows (lists of strings) as columns, the first row as a header;
-- right-aligned except the first column.
function M.table(rows, out)
  out = out or print
  local widths = {}
  for _, row in ipairs(rows) do
    for c, cell in ipairs(row) do widths[c] = math.max(widths[c] or 0, #cell) end
  end
  for _, row in ipairs(rows) do
    local cells = {}
    for c, cell in ipairs(row) do
      local pad = string.rep(" ", widths[c] - #cell)
      cells[c] = c == 1 and cell .. pad or pad .. cell
    end
    out(table.concat(cells, "  "))
  end
end

return M
