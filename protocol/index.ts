/**
 * vimrelay protocol: the contract shared by the Worker and the agent. Runtime-neutral: no node:*,
 * no Workers globals, no I/O.
 */
export * from './errors.ts';
export * from './limits.ts';
export * from './names.ts';
export * from './result.ts';
export * from './routing.ts';
export * from './tool.ts';
export * from './wire.ts';
export * from './decisions.ts';
export * from './elicitation.ts';
export * from './visible.ts';
export * from './app/card.ts';
export * from './tools/common.ts';
export * from './tools/index.ts';
export * from './scopes.ts';
export * from './toolsets.ts';
export * from './catalog-view.ts';
