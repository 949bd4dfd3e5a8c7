/** See inputs-digest.mjs. */
export function inputsDigest(root: string, inputs: readonly string[]): string;
