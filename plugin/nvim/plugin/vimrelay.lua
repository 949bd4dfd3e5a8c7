-- vimrelay for Neovim: names this instance for the agent and reports whether the agent can find it.
-- The agent does everything else over RPC by itself; this plugin holds only commands.
if vim.g.loaded_vimrelay then
  return
end
vim.g.loaded_vimrelay = true

-- :VimRelayName {name}  name this editor as list_editors shows it (no argument: show the name;
-- `!` clears it, falling back to the cwd's last component).
vim.api.nvim_create_user_command('VimRelayName', function(opts)
  require('vimrelay').name(opts.args, opts.bang)
end, { nargs = '?', bang = true, desc = 'vimrelay: name this editor' })

-- :VimRelayStatus  whether this editor is discoverable by the agent, and under which name; which
--                  agent serves this machine, and whether it lists this editor.
vim.api.nvim_create_user_command('VimRelayStatus', function()
  require('vimrelay').status()
end, { nargs = 0, desc = 'vimrelay: status of this editor' })
