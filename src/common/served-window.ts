// The served context window is part of the run's vocabulary (a ledger field): declared in src/shared.
export * from '../shared/context-window';
