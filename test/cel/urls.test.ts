import { describe, it } from 'node:test'
import { assertAllTrue, assertEvalError } from './helpers.js'

describe('CEL URL library', () => {
  it('parses absolute URIs and absolute paths and answers their parts as net/url does', () => assertAllTrue([
    'url("https://user@example.com:443/a%20b?x=1&x=2&y=z").getScheme() == "https"',
    'url("https://example.com:443/p").getHost() == "example.com:443"',
    'url("https://example.com:443/p").getHostname() == "example.com"',
    'url("https://example.com:443/p").getPort() == "443"',
    'url("https://example.com/p").getPort() == ""',
    'url("https://[::1]:8080/").getHostname() == "::1"',
    'url("https://[::1]:8080/").getHost() == "[::1]:8080"',
    'url("https://example.com/a%20b").getEscapedPath() == "/a%20b"',
    'url("https://e.com/?x=1&x=2&y=z").getQuery() == {"x": ["1", "2"], "y": ["z"]}',
    'url("/api/v1").getHost() == ""',
    'isURL("https://example.com")', '!isURL("example.com")', '!isURL("not a url")'
  ]))
  it('fails url() of a relative reference', () => assertEvalError('url("a/b").getHost() == ""', /URL parse error/))
})
