-- lua/lib/fmt.lua: three significant digits in the largest unit that keeps
-- the number at 1 or more, never an exponent.
local check = require "check"
local fmt = require "fmt"

local cases = {
  {fmt.bytes, 0, "0 B"}, {fmt.bytes, 48, "48 B"}, {fmt.bytes, 48000, "48 KB"},
  {fmt.bytes, 1.20334e12, "1.2 TB"}, {fmt.bytes, 999.7e3, "1 MB"},
  {fmt.bytes, 4.8e18, "4800 PB"}, {fmt.bytes, 12345, "12.3 KB"},
  {fmt.time, 0, "0 s"}, {fmt.time, 1234, "1234 s"}, {fmt.time, 12800000, "12800000 s"},
  {fmt.time, 999.7, "1000 s"}, {fmt.time, 0.9997, "1 s"}, {fmt.time, 999.7e-6, "1 ms"}, {fmt.time, 5.56, "5.56 s"}, {fmt.time, 0.0123, "12.3 ms"},
  {fmt.time, 4.5e-6, "4.5 us"}, {fmt.time, 2e-10, "0.2 ns"},
}
for i, c in ipairs(cases) do
  check.eq(c[1](c[2]), c[3], "case " .. i .. " (" .. tostring(c[2]) .. ")")
end
check.eq(fmt.pct(0.1234), "12.3%", "pct")
check.done("fmt")
