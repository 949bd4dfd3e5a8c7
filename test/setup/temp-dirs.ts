/** Every test file's temporary directories (test/helpers/temp.ts) go when its tests are done. */
import { afterAll } from 'vitest';
import { removeTempDirs } from '../helpers/temp.ts';

afterAll(removeTempDirs);
