// A Tablepay webhook receiver in the JDK alone (Java 17+) that passes `tablepay receiver check`.
//
//   TABLEPAY_WEBHOOK_SECRET=whsec_… PORT=3000 java examples/receivers/Receiver.java
//   tablepay receiver check --forward-to http://127.0.0.1:3000/webhooks
//
// The same three rules as node-http.mjs: verify the raw body before parsing it,
// answer 2xx to a duplicate (deduplicate on the event id), answer 2xx to an
// older state and keep the newer one.
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

public class Receiver {
    public static void main(String[] args) throws IOException {
        String secret = System.getenv("TABLEPAY_WEBHOOK_SECRET");
        if (secret == null || secret.isEmpty()) {
            System.err.println("Set TABLEPAY_WEBHOOK_SECRET to the endpoint's whsec_… secret.");
            System.exit(1);
        }
        String port = System.getenv().getOrDefault("PORT", "3000");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(port)), 0);
        Inbox inbox = new Inbox();
        // No executor: one request at a time, as node-http.mjs, so the inbox needs no lock.
        server.createContext("/", exchange -> handle(exchange, secret, inbox));
        server.start();
        System.out.println("listening on http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks");
    }

    /** Any path, POST only. */
    static void handle(HttpExchange exchange, String secret, Inbox inbox) throws IOException {
        if (!exchange.getRequestMethod().equals("POST")) {
            exchange.getResponseHeaders().set("Allow", "POST");
            answer(exchange, 405, "");
            return;
        }
        byte[] body = exchange.getRequestBody().readAllBytes();
        String reason;
        try {
            reason = TablepaySignature.verify(body, exchange.getRequestHeaders().getFirst("X-Tablepay-Signature"), secret);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        if (reason != null) {
            answer(exchange, 400, reason);
            return;
        }
        Map<?, ?> event;
        try {
            event = (Map<?, ?>) Json.parse(new String(body, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException | ClassCastException e) {
            answer(exchange, 400, "invalid_json");
            return;
        }
        // Answer at once (within 10 s), then do slow work elsewhere: a late answer is a failed delivery.
        answer(exchange, 200, inbox.receive(event) ? "ok" : "duplicate");
    }

    static void answer(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }
}

final class TablepaySignature {
    static final long TOLERANCE_SECONDS = 300;

    /** null when header signs body with secret within the tolerance; else why not. */
    static String verify(byte[] body, String header, String secret) throws GeneralSecurityException {
        if (header == null || header.isBlank()) return "no_signature";
        List<String> timestamps = new ArrayList<>();
        List<byte[]> signatures = new ArrayList<>();
        for (String field : header.split(",")) {
            String[] pair = field.trim().split("=", 2);
            if (pair.length < 2) continue;
            if (pair[0].equals("t")) timestamps.add(pair[1]);
            if (pair[0].equals("v1")) signatures.add(pair[1].getBytes(StandardCharsets.UTF_8));
        }
        if (timestamps.size() != 1 || !timestamps.get(0).matches("[0-9]{1,18}")) return "malformed_header";
        if (signatures.isEmpty()) return "no_signature";
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update((timestamps.get(0) + ".").getBytes(StandardCharsets.UTF_8));
        byte[] expected = HexFormat.of().formatHex(mac.doFinal(body)).getBytes(StandardCharsets.UTF_8);
        boolean matches = false;
        for (byte[] signature : signatures) matches |= MessageDigest.isEqual(expected, signature);
        if (!matches) return "signature_mismatch";
        long drift = Instant.now().getEpochSecond() - Long.parseLong(timestamps.get(0));
        if (Math.abs(drift) > TOLERANCE_SECONDS) return "timestamp_outside_tolerance";
        return null;
    }
}

/** The event ids handled and the newest state of each resource. In production, keep both in your database. */
final class Inbox {
    private final Set<Object> seen = new HashSet<>();
    private final Map<Object, Map<?, ?>> latest = new HashMap<>();

    /** Takes an event in; false when its id was handled before. */
    boolean receive(Map<?, ?> event) {
        if (!seen.add(event.get("id"))) return false;
        if (event.get("data") instanceof Map<?, ?> resource && resource.containsKey("id") && isNewer(resource))
            latest.put(resource.get("id"), resource);
        return true;
    }

    /** Newer by updated_at, then by version: a claim or a payment changes a check without a new POS version. */
    boolean isNewer(Map<?, ?> resource) {
        Map<?, ?> current = latest.get(resource.get("id"));
        if (current == null) return true;
        String updated = String.valueOf(resource.get("updated_at"));
        String currentUpdated = String.valueOf(current.get("updated_at"));
        if (!updated.equals(currentUpdated)) return updated.compareTo(currentUpdated) > 0;
        return version(resource) > version(current);
    }

    private static double version(Map<?, ?> resource) {
        return resource.get("version") instanceof Double version ? version : 0;
    }
}

/** Just enough JSON for the example: the JDK has no parser (in a service, use Jackson or Gson). */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** A Map, List, String, Double, Boolean or null; IllegalArgumentException when `text` is not JSON. */
    static Object parse(String text) {
        Json json = new Json(text);
        Object value = json.value();
        if (json.skipSpace() != text.length()) throw json.error();
        return value;
    }

    private Object value() {
        skipSpace();
        if (at == text.length()) throw error();
        char c = text.charAt(at);
        if (c == '{') {
            Map<String, Object> object = new LinkedHashMap<>();
            if (!close('{', '}')) do object.put(string(), colonThenValue()); while (more('}'));
            return object;
        }
        if (c == '[') {
            List<Object> array = new ArrayList<>();
            if (!close('[', ']')) do array.add(value()); while (more(']'));
            return array;
        }
        if (c == '"') return string();
        for (String word : new String[] {"true", "false", "null"})
            if (text.startsWith(word, at)) {
                at += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        int start = at;
        while (at < text.length() && "+-.0123456789eE".indexOf(text.charAt(at)) >= 0) at++;
        return Double.valueOf(text.substring(start, at)); // a NumberFormatException is an IllegalArgumentException
    }

    private String string() {
        if (skipSpace() == text.length() || text.charAt(at++) != '"') throw error();
        StringBuilder out = new StringBuilder();
        for (char c; (c = next()) != '"'; ) {
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char escaped = next();
            switch (escaped) {
                case 'u' -> {
                    if (at + 4 > text.length()) throw error();
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                default -> out.append(escaped);
            }
        }
        return out.toString();
    }

    private Object colonThenValue() {
        if (skipSpace() == text.length() || text.charAt(at++) != ':') throw error();
        return value();
    }

    /** Steps over `open`; true when `close` follows at once (an empty object or array). */
    private boolean close(char open, char close) {
        at++;
        if (skipSpace() < text.length() && text.charAt(at) == close) {
            at++;
            return true;
        }
        return false;
    }

    /** After a member: true on a comma, false on `close`. */
    private boolean more(char close) {
        if (skipSpace() == text.length()) throw error();
        char c = text.charAt(at++);
        if (c == ',') return true;
        if (c == close) return false;
        throw error();
    }

    private char next() {
        if (at == text.length()) throw error();
        return text.charAt(at++);
    }

    private int skipSpace() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
        return at;
    }

    private IllegalArgumentException error() {
        return new IllegalArgumentException("not JSON at character " + at);
    }
}
