import { renderedForms } from "../src/report/escape.js";

/**
 * The secret the redaction tests plant (characters markdown, HTML, JSON and URLs escape) and every form a
 * leaked value could take in our outputs; `core` is a part no escaping changes.
 */
export const plantedSecret = 'mst_SECRET555qq-x.y:z*|<"`[a](b)#_';
const core = "SECRET555qq";

const plantedSecretForms = [
  plantedSecret,
  JSON.stringify(plantedSecret).slice(1, -1),
  encodeURIComponent(plantedSecret),
  ...renderedForms(plantedSecret),
  core,
];

/** Throws, naming the place and the form, when `text` holds the planted secret in any form. */
export function expectNoPlantedSecret(where: string, text: string): void {
  for (const form of plantedSecretForms) {
    if (text.includes(form)) throw new Error(`${where} contains the secret as ${JSON.stringify(form)}`);
  }
}
