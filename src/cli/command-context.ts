import type { DocQaApp } from '../app/docqa-app';
import type { CliIo } from './cli-io';
import type { SettingsPart } from './cli-env';

/** What every command group needs from the program: output, and the application layer over the data directory. */
export interface CommandContext {
  io: CliIo;
  json: (value: unknown) => void;
  /** The application layer with the settings parts this command reads from the environment. */
  app: (parts?: readonly SettingsPart[]) => DocQaApp;
}
