// Lists and reads every skill of a stdio server with the official MCP TypeScript SDK
// client (@modelcontextprotocol/client, its SkillsClient), as a host built on it does.
// Usage: node list_skills.mjs '["command", "arg", ...]'
// Prints one JSON object: {skills: [{uri, frontmatter, verified}], stderr} or
// {error, stderr} when the client refuses (or cannot read) the listing.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";

const [command, ...args] = JSON.parse(process.argv[2]);
const client = new Client(
  { name: "skills-check", version: "1.0.0" },
  { capabilities: { extensions: { "io.modelcontextprotocol/skills": {} } } },
);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "pipe" });
let stderr = "";
transport.stderr?.on("data", (chunk) => { stderr += chunk.toString(); });
let out;
try {
  await client.connect(transport);
  const skills = new SkillsClient(client);
  const listing = await skills.list();
  const found = [];
  for (const skill of listing.skills) {
    const file = await skills.read(skill);
    found.push({ uri: skill.uri, frontmatter: skill.frontmatter, verified: file.verified });
  }
  out = { supported: skills.supported, skills: found };
} catch (error) {
  out = { error: String(error?.message ?? error) };
}
await client.close().catch(() => {});
out.stderr = stderr;
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
