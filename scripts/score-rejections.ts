import { CORPUS, DEV, HELD_OUT, HELD_OUT_SHARE, SPLIT_SEED } from '../test/fixtures/rejections/corpus';
import { devFailures, table } from '../test/fixtures/rejections/score';

// Prints the per-class score of the rejection reader on both parts of the corpus
// (test/fixtures/rejections): `npm run score:rejections`. docs/verdicts.md records its output.
console.log(`${CORPUS.length} replies; split by source with seed "${SPLIT_SEED}", held-out share ${HELD_OUT_SHARE}\n`);
console.log(`development part (${DEV.length} replies, read to write rules):\n\n${table(DEV)}\n`);
console.log(`held-out part (${HELD_OUT.length} replies, scored only):\n\n${table(HELD_OUT)}`);
// --failures lists what the development part gets wrong; the held-out part's failures are not printed
if (process.argv.includes('--failures')) console.log(`\ndevelopment part, wrong:\n${devFailures(DEV).join('\n')}`);
