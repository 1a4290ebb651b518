// The fault-injection headers' names (docs/api.md "Fault injection"), in a module with no imports: the client
// sends the first with every simulated call, and importing contract/faults.ts (the grammar and the rules' TypeBox
// schemas) for it loaded TypeBox — ~200 ES modules, ~50 ms — into every CLI command's start.

export const SIMULATE_HEADER = 'Payorch-Simulate';
/** The header's name as Node gives it (lower case). */
export const SIMULATE_HEADER_LC = 'payorch-simulate';
/** An injected answer carries this header: the fault that made it. */
export const SIMULATED_HEADER = 'Payorch-Simulated';
