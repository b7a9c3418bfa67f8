-- Drives `knotmeter serve` from Neovim 0.7's built-in LSP client, headless, and writes what it
-- received to $KNOTMETER_NVIM_OUT as JSON. Run by tests/neovim.rs.
local root = os.getenv('KNOTMETER_NVIM_ROOT')
local out_path = os.getenv('KNOTMETER_NVIM_OUT')
local file = root .. '/benches/nested/child.rs'
local received = { initialized = false, diagnostics = {}, lenses = vim.NIL, run = vim.NIL, errors = {} }

local function finish()
  local f = io.open(out_path, 'w')
  f:write(vim.fn.json_encode(received))
  f:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = 'knotmeter',
    cmd = { os.getenv('KNOTMETER_BIN'), 'serve' },
    root_dir = root,
    init_options = { quickTimeSecs = 0.02 },
    on_init = function() received.initialized = true end,
    handlers = {
      ['textDocument/publishDiagnostics'] = function(e, result, ctx, config)
        table.insert(received.diagnostics, result)
        vim.lsp.diagnostic.on_publish_diagnostics(e, result, ctx, config)
      end,
      ['knotmeter/discovered'] = function() end,
      ['knotmeter/runState'] = function() end,
      ['knotmeter/output'] = function() end,
      ['knotmeter/runEnd'] = function(_, result) received.run_end = result end,
    },
  })
  vim.cmd('edit ' .. file)
  vim.lsp.buf_attach_client(0, client_id)
  vim.wait(20000, function() return received.initialized end, 20)
  local client = vim.lsp.get_client_by_id(client_id)

  local params = { textDocument = vim.lsp.util.make_text_document_params() }
  client.request('textDocument/codeLens', params, function(e, result)
    if e then table.insert(received.errors, e) end
    received.lenses = result or {}
  end, 0)
  vim.wait(20000, function() return received.lenses ~= vim.NIL end, 20)

  -- The file does not compile: a run builds it and the error arrives as a diagnostic.
  client.request('knotmeter/run', { include = { 'basic::nested::child::first' }, mode = 'quick' },
    function(e, result)
      if e then table.insert(received.errors, e) end
      received.run = result or {}
    end, 0)
  vim.wait(240000, function() return received.run_end ~= nil end, 50)
  received.buffer_diagnostics = #vim.diagnostic.get(0)
end)
if not ok then table.insert(received.errors, tostring(err)) end
finish()
