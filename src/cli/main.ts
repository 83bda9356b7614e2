import readline from 'node:readline/promises';
import { Command, CommanderError } from 'commander';
import { DocQaApp } from '../app/docqa-app';
import { DocQaError, UsageError, errorMessage } from '../common/errors';
import { registerAskCommands } from './ask-commands';
import { registerChatCommands } from './chat-commands';
import { registerDataCommands } from './data-commands';
import { type SettingsPart, keysFromEnv, redactorFromEnv, resolveStore, settingsFromEnv } from './cli-env';
import type { CliIo } from './cli-io';
import type { CommandContext } from './command-context';
import { registerEvalCommands } from './eval-commands';
import { registerIndexCommands } from './index-commands';
import { registerMcpCommand } from './mcp-command';
import { registerModelCommands } from './model-commands';
import { registerPromptCommands } from './prompt-commands';
import { registerSourceCommands } from './source-commands';
import { registerTraceCommands } from './trace-commands';
import pkg from '../../package.json';

async function askOnTerminal(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/**
 * The `docqa` command: argument parsing and printing over the application layer (src/app), which does
 * the work. Only the CLI reads the environment: DOCQA_* variables become the application's settings
 * (each command reads the parts it uses) and its keys.
 */
function buildProgram(io: CliIo): Command {
  const program = new Command('docqa')
    .description('Ask questions about your own documents, with citations you can verify.')
    .version(pkg.version)
    .option('--store <dir>', 'data directory (default $DOCQA_HOME, else ~/.docqa)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false);
  const ctx: CommandContext = {
    io,
    json: (v) => io.stdout(`${JSON.stringify(v, null, 2)}\n`),
    app: (parts: readonly SettingsPart[] = []) =>
      new DocQaApp({ dataDir: resolveStore(program.opts<{ store?: string }>().store, io.env).root, settings: settingsFromEnv(io.env, parts), keys: keysFromEnv(io.env), appVersion: pkg.version }),
  };
  registerSourceCommands(program, ctx);
  registerIndexCommands(program, ctx);
  registerAskCommands(program, ctx);
  registerModelCommands(program, ctx);
  registerChatCommands(program, ctx);
  registerTraceCommands(program, ctx);
  registerPromptCommands(program, ctx);
  registerEvalCommands(program, ctx);
  registerDataCommands(program, ctx);
  registerMcpCommand(program, ctx);
  return program;
}

/** Runs the CLI; returns the exit status (0 done, 2 usage error, 1 anything else). Never exits itself. */
export async function runCli(argv: readonly string[], rawIo: CliIo): Promise<number> {
  // Every byte the CLI prints passes the redactor: an upstream error that echoes a key never reaches the terminal.
  const redactor = redactorFromEnv(rawIo.env);
  const io: CliIo = { ...rawIo, stdout: (s) => rawIo.stdout(redactor.redact(s)), stderr: (s) => rawIo.stderr(redactor.redact(s)) };
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return 0;
      return 2; // commander already printed the one-line reason
    }
    if (err instanceof UsageError) {
      io.stderr(`docqa: ${err.message}\n`);
      return 2;
    }
    io.stderr(`docqa: ${err instanceof DocQaError ? err.message : `unexpected error: ${errorMessage(err)}`}\n`);
    return 1;
  }
}

if (require.main === module) {
  // A reader that stops early (`docqa inspect FILE | head`) closes the pipe: the rest of the output has
  // nowhere to go, which is no failure of the command; it finishes (an index still gets built) quietly.
  let stdoutGone = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    stdoutGone = true;
    if (err.code === 'EPIPE') return;
    process.stderr.write(`docqa: cannot write output: ${err.message}\n`);
    process.exitCode = 1;
  });
  void runCli(process.argv.slice(2), {
    stdout: (s) => {
      if (!stdoutGone) process.stdout.write(s);
    },
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    interactive: process.stderr.isTTY === true,
    confirm: process.stdin.isTTY && process.stderr.isTTY ? askOnTerminal : undefined,
  }).then((code) => {
    process.exitCode = process.exitCode || code;
  });
}
