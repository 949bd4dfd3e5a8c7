/**
 * Validation of the names clients choose: device and token names, and hostnames, by the rule of
 * protocol/names.ts. Shared by the admin API and pairing. Names end up in editor ids
 * (`<device>/<editor>`) and client ids (`pat:<name>`), and every one of them on the owner's pages
 * (escaped there): no control characters and no `/`.
 */
import { z } from 'zod';
import { MAX_DEVICE_NAME, MAX_HOSTNAME, nameProblem } from '../../protocol/index.ts';

/** A string held to protocol/names.ts's rule for names of at most `max` characters. */
const named = (max: number) =>
  z.string().superRefine((name, ctx) => {
    const problem = nameProblem(name, max);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A device or token name: 1 to MAX_DEVICE_NAME characters, no control characters, no `/`. */
export const DeviceName = named(MAX_DEVICE_NAME);

/** A hostname as the machine reports it: 1 to MAX_HOSTNAME characters, no control characters, no `/`. */
export const Hostname = named(MAX_HOSTNAME);
