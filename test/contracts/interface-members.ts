/**
 * The members of an interface as the TypeScript compiler reads them from its source, so that the
 * contract coverage test follows the interface itself and no hand-kept list of it. A property whose
 * type is an interface declared in the same file is a part of the whole (the Headset's `eeg`,
 * `motors` ...): its members are listed as `part.member` instead of the part itself.
 */
import ts from 'typescript';
import { parsedOnceHost } from '../support/parsed-once.js';

// Neither the language's, Node's nor the packages' declarations: an interface's members are named
// in src/, and reading those declarations was most of the program's work (8 s of CPU to about 1).
const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  noLib: true,
  types: [],
};

function srcOnlyHost(): ts.CompilerHost {
  const host = parsedOnceHost(OPTIONS);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => !name.includes('/node_modules/') && fileExists(name);
  return host;
}

export function interfaceMembers(file: string, name: string): string[] {
  // Each call reads much of src/: parsed once for every interface asked about.
  const program = ts.createProgram([file], OPTIONS, srcOnlyHost());
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`cannot read ${file}`);
  const declaration = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name,
  );
  if (declaration === undefined) throw new Error(`${file} declares no interface ${name}`);
  const members: string[] = [];
  for (const property of checker.getPropertiesOfType(checker.getTypeAtLocation(declaration))) {
    // An optional part (`motors?: MotorController`) is a part too: its type without `undefined`.
    const type = checker.getNonNullableType(checker.getTypeOfSymbol(property));
    const partDeclaration = type.getSymbol()?.declarations?.[0];
    const isPart =
      partDeclaration !== undefined &&
      ts.isInterfaceDeclaration(partDeclaration) &&
      partDeclaration.getSourceFile().fileName === source.fileName;
    if (!isPart) {
      members.push(property.name);
      continue;
    }
    for (const member of checker.getPropertiesOfType(type)) members.push(`${property.name}.${member.name}`);
  }
  return members.sort();
}
