/**
 * The host application's side of OAuth, as the official MCP clients (1.x and 2.x alike) ask for
 * it: what the tool is (its redirect URI and metadata, or its metadata document's URL), what it
 * registered, the tokens and PKCE verifier it keeps between steps, and where it would send the
 * user (kept for the test to open).
 */
export class TestOAuthProvider {
  information: any;
  saved: any;
  verifier = '';
  authorizationUrl: URL | undefined;
  clientMetadataUrl?: string;
  constructor(
    readonly redirectUrl: string,
    readonly clientMetadata: any,
    options: { metadataUrl?: string; registered?: any; state?: string } = {},
  ) {
    if (options.metadataUrl) this.clientMetadataUrl = options.metadataUrl;
    this.information = options.registered;
    this.stateValue = options.state ?? 'client-matrix-state';
  }
  private readonly stateValue: string;
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: any) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: any) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
