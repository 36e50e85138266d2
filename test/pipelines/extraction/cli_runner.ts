// Runs `svc extract` / `svc eval` command modules in a child process for the CLI tests.
const [cmd, ...rest] = process.argv.slice(2);
const mod = cmd === 'eval' ? await import('../../../bin/commands/eval.ts') : await import('../../../bin/commands/extract.ts');
process.exitCode = await mod.run(rest);
