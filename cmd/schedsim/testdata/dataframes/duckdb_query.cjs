// Runs SQL queries with DuckDB (the npm package @duckdb/node-api, found in
// the directory DUCKDB_DIR) and prints their results as JSON: one array of
// row objects per query, values as DuckDB's JSON form gives them (BIGINT
// as a string, TIMESTAMP WITH TIME ZONE as "2001-09-09 01:46:40+00").
// Usage: node duckdb_query.cjs QUERY...
const path = require('path');
const { DuckDBInstance } = require(path.join(process.env.DUCKDB_DIR, 'node_modules', '@duckdb', 'node-api'));

(async () => {
	const db = await DuckDBInstance.create(':memory:');
	const conn = await db.connect();
	await conn.run("SET TimeZone = 'UTC'");
	const out = [];
	for (const q of process.argv.slice(2)) {
		const r = await conn.runAndReadAll(q);
		out.push(r.getRowObjectsJson());
	}
	console.log(JSON.stringify(out));
})().catch((e) => {
	console.error(String(e));
	process.exit(1);
});
