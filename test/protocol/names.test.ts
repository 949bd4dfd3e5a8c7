// The name a device takes when none is given (protocol/names.ts): always one the relay takes, and
// the machine's own name whenever that is one.
import { describe, expect, it } from 'vitest';
import { defaultDeviceName, deviceNameProblem, MAX_DEVICE_NAME } from '../../protocol/index.ts';

describe('defaultDeviceName', () => {
  it.each([
    ['laptop', 'laptop'],
    ['build-01.example.com', 'build-01.example.com'],
    // A fully qualified name too long for a name: its host part.
    [`workstation.${'department.'.repeat(6)}example.com`, 'workstation'],
    // One label too long: cut to the longest name.
    ['w'.repeat(80), 'w'.repeat(MAX_DEVICE_NAME)],
    [`${'h'.repeat(70)}.example.com`, 'h'.repeat(MAX_DEVICE_NAME)],
    // What no name may hold becomes "-".
    ['odd/host', 'odd-host'],
    ['', 'device'],
  ])('%j → %j', (host, name) => {
    expect(defaultDeviceName(host)).toBe(name);
    expect(deviceNameProblem(defaultDeviceName(host))).toBeNull();
  });
});
