import AdamantCore
import Testing

@testable import AdamantNodes

@Suite struct ClassificationTests {
    /// Every message of docs/node-api.md §2's table, as nodes send it (with their suffixes).
    @Test(arguments: [
        ("Transaction is already processed: 123", 200, false, NodeErrorClass.applied),
        ("Transaction is already confirmed: 123", 200, false, .applied),
        ("Transaction timestamp is more than 5 seconds in the past", 200, false, .ambiguous),
        ("Account does not have enough ADM: U123 balance: 0.49", 200, true, .ambiguous),
        ("API error: Cannot read properties of undefined", 500, false, .ambiguous),
        ("Transaction pool is full", 200, false, .tryElsewhere),
        ("Blockchain is loading", 200, false, .tryElsewhere),
        ("Transactions#getById error", 200, false, .tryElsewhere),
        ("Transaction#countById error", 200, false, .tryElsewhere),
        ("API endpoint not found", 500, false, .tryElsewhere),
        ("API endpoint not found", 404, false, .tryElsewhere),
        ("API access denied", 403, false, .tryElsewhere),
        ("Transaction timestamp is in the future", 200, false, .clock),
        ("Invalid transaction timestamp. Timestamp is in the future", 200, false, .clock),
        ("Missing required property: signature", 200, false, .rejected),
        ("Failed to verify signature", 200, false, .rejected),
        ("Invalid sender address", 200, false, .rejected),
        ("Invalid sender public key: ab expected: cd", 200, false, .rejected),
        ("Invalid transaction amount", 200, false, .rejected),
        ("Invalid recipient", 200, false, .rejected),
        ("Missing recipient", 200, false, .rejected),
        ("Invalid transaction asset", 200, false, .rejected),
        ("Invalid message type", 200, false, .rejected),
        ("Message must not be blank", 200, false, .rejected),
        ("Message is too long. Maximum is 20480 characters", 200, false, .rejected),
        ("Failed to validate chat schema: x", 200, false, .rejected),
        ("Unknown transaction type 7", 200, false, .rejected),
        ("Invalid signature", 200, false, .rejected),
        ("Missing second passphrase", 200, false, .rejected),
        ("Account does not have enough ADM: U123 balance: 0.49", 200, false, .rejected),
        (
            "Invalid transaction timestamp. timestampMs must be within the same second as timestamp, from 0 to 999ms",
            200, false, .rejected
        ),
        ("something new", 503, false, .ambiguous),
        ("something new", 429, false, .tryElsewhere),
    ])
    func nodeMessages(message: String, status: Int, isResend: Bool, expected: NodeErrorClass) {
        #expect(NodeErrorClass(message: message, status: status, isResend: isResend) == expected)
    }

    @Test func appliedOnlyWithOurID() {
        let ours = TransactionID(number: 123)
        #expect(
            WriteOutcome(message: "Transaction is already confirmed: 123", status: 200, id: ours, isResend: true)
                == .applied(ours, message: "Transaction is already confirmed: 123"))
        #expect(
            WriteOutcome(message: "Transaction is already processed: 999", status: 200, id: ours, isResend: true)
                == .ambiguous("Transaction is already processed: 999"))
    }

    @Test(arguments: [
        (
            200, #"{"success":true,"nodeTimestamp":1,"transactionId":"55"}"#,
            WriteOutcome.accepted(TransactionID(number: 55))
        ),
        (
            200, #"{"success":true,"nodeTimestamp":1,"transactionId":"56"}"#,
            .ambiguous("the node reports id 56 for our 55")
        ),
        (
            200, #"{"success":false,"nodeTimestamp":1,"error":"Failed to verify signature"}"#,
            .rejected("Failed to verify signature")
        ),
        (500, #"{"success":false,"error":"API error: boom"}"#, .ambiguous("API error: boom")),
        (429, "Too many requests", .tryElsewhere("HTTP 429 with a body that is not node JSON (text/plain)")),
        (502, "<html>Bad gateway</html>", .ambiguous("HTTP 502 with a body that is not node JSON (text/plain)")),
    ])
    func submissionAnswers(status: Int, body: String, expected: WriteOutcome) {
        let answer = HTTPAnswer(status: status, contentType: "text/plain", body: Array(body.utf8))
        #expect(NodePool.classify(answer, id: TransactionID(number: 55), isResend: false) == expected)
    }

    @Test func envelopes() {
        func reply(_ status: Int, _ body: String) -> NodeReply {
            NodeReply(HTTPAnswer(status: status, contentType: nil, body: Array(body.utf8)))
        }
        #expect(
            reply(200, #"{"success":true,"nodeTimestamp":1,"height":5}"#)
                == .success(Array(#"{"success":true,"nodeTimestamp":1,"height":5}"#.utf8)))
        #expect(
            reply(200, #"{"success":false,"nodeTimestamp":1,"error":"Account not found"}"#)
                == .failure(message: "Account not found", status: 200))
        #expect(
            reply(500, #"{"success":false,"error":"API endpoint not found"}"#)
                == .failure(message: "API endpoint not found", status: 500))
        #expect(reply(503, #"{"success":true}"#) == .notFromNode(reason: "HTTP 503 with success: true"))
        // The rest of a body that opens as a success is the caller's to read and check.
        #expect(reply(200, " {\n \"success\" : true }") == .success(Array(" {\n \"success\" : true }".utf8)))
        #expect(
            reply(200, #"{"success":true,"transactions":[{"#)
                == .success(Array(#"{"success":true,"transactions":[{"#.utf8)))
        #expect(
            reply(200, #"{"success":trueish}"#) == .notFromNode(reason: "HTTP 200 with a body that is not node JSON"))
        #expect(
            reply(200, #"{"nodeTimestamp":1,"success":true}"#)
                == .success(Array(#"{"nodeTimestamp":1,"success":true}"#.utf8)))
        #expect(
            reply(404, "<!DOCTYPE html><html>Cannot GET /api/foo</html>")
                == .notFromNode(reason: "HTTP 404 with a body that is not node JSON"))
        #expect(reply(200, #"{"success":tr"#) == .notFromNode(reason: "HTTP 200 with a body that is not node JSON"))
        #expect(reply(200, #"{"height":5}"#) == .notFromNode(reason: "HTTP 200 with a body that is not node JSON"))
        let labelled = NodeReply(
            HTTPAnswer(status: 200, contentType: "application/json; charset=utf-8", body: Array(#"{"success":tr"#.utf8))
        )
        #expect(labelled == .malformed(reason: "HTTP 200 with JSON that is not a node's answer"))
    }
}

@Suite struct HedgedReadMachineTests {
    @Test func asksTheBestThenHedgesOnTheTimer() {
        var machine = HedgedReadMachine(candidateCount: 3)
        #expect(machine.start() == [.ask(candidate: 0), .armHedgeTimer(generation: 1)])
        #expect(machine.hedgeTimerFired(generation: 1) == [.ask(candidate: 1), .armHedgeTimer(generation: 2)])
        #expect(machine.hedgeTimerFired(generation: 2) == [.ask(candidate: 2)])
        #expect(machine.hedgeTimerFired(generation: 3) == [])
        #expect(machine.attemptAnswered(candidate: 1) == [.finish(candidate: 1)])
        #expect(machine.attemptAnswered(candidate: 0) == [])
    }

    @Test func aFailureMovesOnAtOnceAndStaleTimersAreIgnored() {
        var machine = HedgedReadMachine(candidateCount: 3)
        _ = machine.start()
        #expect(machine.attemptFailed(candidate: 0) == [.ask(candidate: 1), .armHedgeTimer(generation: 2)])
        #expect(machine.hedgeTimerFired(generation: 1) == [])
        #expect(machine.attemptFailed(candidate: 1) == [.ask(candidate: 2)])
        #expect(machine.attemptFailed(candidate: 2) == [.giveUp])
    }

    @Test func waitsForTheOthersBeforeGivingUp() {
        var machine = HedgedReadMachine(candidateCount: 2)
        _ = machine.start()
        _ = machine.hedgeTimerFired(generation: 1)
        #expect(machine.attemptFailed(candidate: 1) == [])
        #expect(machine.attemptFailed(candidate: 0) == [.giveUp])
    }

    @Test func noCandidatesGivesUpAndOneNeedsNoTimer() {
        var none = HedgedReadMachine(candidateCount: 0)
        #expect(none.start() == [.giveUp])
        var one = HedgedReadMachine(candidateCount: 1)
        #expect(one.start() == [.ask(candidate: 0)])
    }
}
