-- help: the commands and what they do.
local args = require "args"

wt.command("help", function(words)
  local names, known = {}, {}
  for _, c in ipairs(wt.commands()) do
    names[#names + 1] = c.name
    known[c.name] = c
  end
  if #words > 1 or (#words == 1 and not known[words[1]]) then
    args.fail("help", "no command '%s' (commands: %s)", table.concat(words, " "), table.concat(names, ", "))
  end
  for _, c in ipairs(wt.commands()) do
    if #words == 0 or words[1] == c.name then wt.print(c.help ~= "" and c.help or c.name) end
  end
end, [[help [COMMAND]
  the commands and their flags]])
