/**
 * `--name`: a device's or a token's name, checked here by the relay's own rule (protocol/names.ts)
 * so that a name the relay would refuse is refused before anything is sent, naming the option.
 */
import { hostname } from 'node:os';
import { defaultDeviceName, deviceNameProblem } from '../../protocol/names.ts';

/** `given`, when the relay would take it as a name. */
export function checkedName(given: string): string {
  const problem = deviceNameProblem(given);
  if (problem !== null) throw new Error(`--name ${problem} (the relay shows it to the owner and puts it in ids)`);
  return given;
}

/** The device name `--name` gives, or without one this machine's (its hostname, shortened if need be). */
export function deviceName(given: string | undefined): string {
  return given === undefined ? defaultDeviceName(hostname()) : checkedName(given);
}
