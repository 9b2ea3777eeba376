/**
 * A strict well-formedness check for the XML-shaped documents the report writes (report.html is written
 * as well-formed XHTML-style markup, the chart files are SVG): every tag closed or self-closed in order,
 * attribute values double-quoted with no raw `<` or `&` outside an entity, names valid, no attribute
 * twice. Returns every element with its attributes so tests can check what the page contains. Written
 * here because no XML parser is a dependency of the project.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  /** Names of the enclosing elements, outermost first. */
  ancestors: string[];
}

const name = /^[A-Za-z_][A-Za-z0-9_.:-]*/;
const entity = /^&(?:[a-zA-Z]+|#[0-9]+|#x[0-9a-fA-F]+);/;
const knownNamedEntities = new Set(["amp", "lt", "gt", "quot", "apos", "nbsp"]);

function checkCharacters(text: string, where: string): void {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "<") throw new Error(`raw "<" in ${where}: ${JSON.stringify(text.slice(i, i + 40))}`);
    if (ch === "&") {
      const match = entity.exec(text.slice(i));
      if (!match) throw new Error(`bare "&" in ${where}: ${JSON.stringify(text.slice(i, i + 40))}`);
      const body = match[0].slice(1, -1);
      if (!body.startsWith("#") && !knownNamedEntities.has(body))
        throw new Error(`unknown entity ${match[0]} in ${where}`);
    }
  }
}

export function parseXml(document: string): XmlElement[] {
  let rest = document.replace(/^<!DOCTYPE html>\s*/i, "");
  const stack: string[] = [];
  const elements: XmlElement[] = [];
  let roots = 0;
  while (rest.length > 0) {
    const open = rest.indexOf("<");
    const textPart = open < 0 ? rest : rest.slice(0, open);
    if (textPart.trim().length > 0) {
      if (stack.length === 0)
        throw new Error(`text outside the root: ${JSON.stringify(textPart.slice(0, 40))}`);
      // Inside <style> the CSS must not need escaping either (no < or & in it).
      checkCharacters(textPart, `text in <${stack.at(-1)}>`);
    }
    if (open < 0) break;
    rest = rest.slice(open);
    if (rest.startsWith("<!--")) {
      const end = rest.indexOf("-->");
      if (end < 0) throw new Error("unterminated comment");
      rest = rest.slice(end + 3);
      continue;
    }
    if (rest.startsWith("</")) {
      const match = name.exec(rest.slice(2));
      if (!match) throw new Error(`bad closing tag: ${JSON.stringify(rest.slice(0, 40))}`);
      const after = rest.slice(2 + match[0].length);
      if (!after.startsWith(">")) throw new Error(`bad closing tag </${match[0]}`);
      const top = stack.pop();
      if (top !== match[0]) throw new Error(`</${match[0]}> closes <${top ?? "nothing"}>`);
      rest = after.slice(1);
      continue;
    }
    const match = name.exec(rest.slice(1));
    if (!match) throw new Error(`bad tag: ${JSON.stringify(rest.slice(0, 40))}`);
    const element: XmlElement = { name: match[0], attrs: {}, ancestors: [...stack] };
    let i = 1 + match[0].length;
    for (;;) {
      while (rest[i] === " " || rest[i] === "\n") i++;
      if (rest.startsWith("/>", i)) {
        i += 2;
        break;
      }
      if (rest[i] === ">") {
        i += 1;
        stack.push(element.name);
        break;
      }
      const attr = name.exec(rest.slice(i));
      if (!attr)
        throw new Error(`bad attribute in <${element.name}>: ${JSON.stringify(rest.slice(i, i + 40))}`);
      i += attr[0].length;
      if (rest[i] !== "=" || rest[i + 1] !== '"')
        throw new Error(`attribute ${attr[0]} of <${element.name}> not ="quoted"`);
      const end = rest.indexOf('"', i + 2);
      if (end < 0) throw new Error(`unterminated attribute ${attr[0]}`);
      const value = rest.slice(i + 2, end);
      checkCharacters(value, `attribute ${attr[0]} of <${element.name}>`);
      if (Object.hasOwn(element.attrs, attr[0]))
        throw new Error(`attribute ${attr[0]} twice in <${element.name}>`);
      element.attrs[attr[0]] = value;
      i = end + 1;
    }
    if (element.ancestors.length === 0) roots++;
    elements.push(element);
    rest = rest.slice(i);
  }
  if (stack.length > 0) throw new Error(`unclosed: ${stack.join(" > ")}`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
  return elements;
}
