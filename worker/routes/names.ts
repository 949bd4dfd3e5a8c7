/**
 * Validation of the names clients choose: device and token names, and hostnames, by the rule of
 * protocol/names.ts. Shared by the admin API and pairing. Names end up in editor ids
 * (`<device>/<editor>`) and client ids (`pat:<name>`), and every one of them on the owner's pages
 * (escaped there): no control characters and no `/`.
 */
import { z } from 'zod';
import { hasControlOrSlash, MAX_DEVICE_NAME, MAX_HOSTNAME } from '../../protocol/index.ts';

/** A device or token name: 1 to MAX_DEVICE_NAME characters, no control characters, no `/`. */
export const DeviceName = z
  .string()
  .min(1)
  .max(MAX_DEVICE_NAME)
  .refine((name) => !hasControlOrSlash(name), { message: 'must not contain control characters or "/"' });

/** A hostname as the machine reports it: 1 to MAX_HOSTNAME characters, no control characters, no `/`. */
export const Hostname = z
  .string()
  .min(1)
  .max(MAX_HOSTNAME)
  .refine((name) => !hasControlOrSlash(name), { message: 'must not contain control characters or "/"' });
