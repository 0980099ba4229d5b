// openapivalidate.mjs — validates OpenAPI documents (the files named on the command line) with
// @seriousme/openapi-schema-validator against the OpenAPI specification's own JSON Schema for
// the document's version, resolves every $ref, and checks every schema object against JSON
// Schema 2020-12's meta-schema (OpenAPI 3.1's dialect), which the specification's schema leaves
// unchecked. Prints one JSON line per file: {"file","valid","version","errors"}.
import { readFile } from "node:fs/promises";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";

const meta = new Ajv2020({ strict: false, validateFormats: false });

// schemas yields [where, schema] for every schema object of a document: request and response
// bodies and the components.
function* schemas(doc) {
	for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
		yield [`components.schemas.${name}`, s];
	}
	for (const [path, item] of Object.entries(doc.paths ?? {})) {
		for (const [method, op] of Object.entries(item)) {
			for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
				yield [`${method} ${path} request ${type}`, media.schema];
			}
			for (const [status, resp] of Object.entries(op.responses ?? {})) {
				for (const [type, media] of Object.entries(resp.content ?? {})) {
					yield [`${method} ${path} ${status} ${type}`, media.schema];
				}
			}
		}
	}
}

for (const file of process.argv.slice(2)) {
	const errors = [];
	let version = "";
	try {
		const doc = JSON.parse(await readFile(file, "utf8"));
		const validator = new Validator();
		const res = await validator.validate(doc);
		version = validator.version ?? "";
		if (!res.valid) {
			errors.push(...[].concat(res.errors).map((e) => JSON.stringify(e)));
		} else {
			validator.resolveRefs();
		}
		for (const [where, s] of schemas(doc)) {
			if (s === undefined) {
				errors.push(`${where}: no schema`);
			} else if (!meta.validateSchema(s)) {
				errors.push(`${where}: ${meta.errorsText(meta.errors)}`);
			}
		}
	} catch (e) {
		errors.push(String(e?.message ?? e));
	}
	console.log(JSON.stringify({ file, valid: errors.length === 0, version, errors }));
}
