// bottleneck's build without clustering (what @octokit/plugin-throttling imports) ships no types of its
// own; it is the same class as the full build's.
declare module "bottleneck/light.js" {
  import Bottleneck from "bottleneck";
  export default Bottleneck;
}
