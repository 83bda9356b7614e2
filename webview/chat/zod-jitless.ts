import { z } from 'zod';

/**
 * zod compiles fast object parsers with `new Function` unless told not to; the CSP allows no eval, and
 * even zod's probe for it is reported as a violation. Imported first by main.tsx: zod decides when each
 * schema is created (at module load), so this must run before any schema module is evaluated.
 */
z.config({ jitless: true });
