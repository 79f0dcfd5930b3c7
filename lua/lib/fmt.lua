-- fmt: numbers for people (bytes, seconds, percentages) and aligned tables.
local M = {}

local function scaled(v, units, step)
  local i = 1
  while math.abs(v) >= step and i < #units do
    v = v / step
    i = i + 1
  end
  return string.format("%.3g %s", v, units[i])
end

function M.bytes(v) return scaled(v, {"B", "KB", "MB", "GB", "TB", "PB"}, 1000) end

function M.time(s)
  if s == 0 then return "0 s" end
  if math.abs(s) >= 1 then return string.format("%.3g s", s) end
  if math.abs(s) >= 1e-3 then return string.format("%.3g ms", s * 1e3) end
  if math.abs(s) >= 1e-6 then return string.format("%.3g us", s * 1e6) end
  return string.format("%.3g ns", s * 1e9)
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
