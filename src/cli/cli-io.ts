/** What the CLI talks through: its output streams, its environment, and the terminal when there is one. */
export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal: long commands may show progress there (never in pipes or tests). */
  interactive?: boolean;
  /** Asks a yes/no question on the terminal; absent when stdin is not one (then nothing is asked). */
  confirm?: (question: string) => Promise<boolean>;
}
