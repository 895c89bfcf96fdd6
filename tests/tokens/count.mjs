// Counts texts with js-tiktoken, an independent implementation of OpenAI's encodings, for the
// differential test in tests/tokens.rs. Reads {"o200k_base": [text, ...], ...} from the file
// named by its argument and prints the same shape with a count in place of each text.
// Content is counted as a chat API counts it: special-token lookalikes are ordinary text.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../ui/package.json", import.meta.url));
const { getEncoding } = require("js-tiktoken");

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const output = {};
for (const [encoding, texts] of Object.entries(input)) {
  const tokenizer = getEncoding(encoding);
  output[encoding] = texts.map((text) => tokenizer.encode(text, [], []).length);
}
process.stdout.write(JSON.stringify(output));
