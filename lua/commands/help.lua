-- help: the commands and what they do.
wt.command("help", function(words)
  for _, c in ipairs(wt.commands()) do
    if #words == 0 or words[1] == c.name then wt.print(c.help ~= "" and c.help or c.name) end
  end
end, [[help [COMMAND]
  the commands and their flags]])
