// Secrets are overwritten in memory once used (issue 21, finding 10): SecretTexts (an SSH
// answer's texts, wiped when the answer goes, also one that came after its question was
// withdrawn), SecretBytes (one holder at a time), wipeSecret and wipeShared. What a wipe
// leaves is read back through the buffer the emptied string keeps, or through a copy sharing it.

#include "prompts.h"

#include <QTest>

using namespace ptwb;

namespace {

QString heapText(const char *text)
{
    return QString::fromUtf8(text);  // characters of its own, not a literal's static data
}

bool allZero(const char16_t *chars, int count)
{
    for (int i = 0; i < count; ++i) {
        if (chars[i] != 0)
            return false;
    }
    return true;
}

}  // namespace

class TestSecrets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void wipeSecretOverwritesInPlace()
    {
        QString secret = heapText("hunter2");
        const auto *chars = reinterpret_cast<const char16_t *>(secret.constData());
        wipeSecret(secret);
        QVERIFY(secret.isEmpty());
        QVERIFY(allZero(chars, 7));  // the emptied string keeps its (zeroed) buffer

        QByteArray bytes = QByteArrayLiteral("hunter2") + QByteArray("!");  // on the heap
        const char *raw = bytes.constData();
        wipeSecret(bytes);
        QVERIFY(bytes.isEmpty());
        QCOMPARE(QByteArray(raw, 8), QByteArray(8, '\0'));
    }

    void wipeSecretLeavesSharedAndStaticTextAlone()
    {
        QString secret = heapText("hunter2");
        const QString copy = secret;  // still needed by its holder: its last holder wipes it
        wipeSecret(secret);
        QVERIFY(secret.isEmpty());
        QCOMPARE(copy, QStringLiteral("hunter2"));

        QString literal = QStringLiteral("static");  // read-only memory: never written
        wipeSecret(literal);
        QVERIFY(literal.isEmpty());
    }

    void wipeSharedReachesEveryCopy()
    {
        QString field = heapText("s3cret");  // a widget's own text
        QString shared = field;
        const QString mine = ownCopy(field);
        wipeShared(shared);
        QVERIFY(shared.isEmpty());
        QCOMPARE(field, QString(6, QChar(0)));
        QCOMPARE(mine, QStringLiteral("s3cret"));  // the deep copy is untouched
    }

    void answerTextsAreWipedWhenTheAnswerGoes()
    {
        SshPromptAnswer answer;
        answer.given = true;
        answer.texts = QStringList {heapText("pass one"), heapText("pass two")};
        const auto *first = reinterpret_cast<const char16_t *>(answer.texts.first().constData());
        const auto *second = reinterpret_cast<const char16_t *>(answer.texts.last().constData());
        answer.texts.wipe();  // what the destructor does
        QCOMPARE(answer.texts.size(), 2);
        QVERIFY(answer.texts.first().isEmpty());
        QVERIFY(allZero(first, 8));
        QVERIFY(allZero(second, 8));

        // A list another copy shares is that copy's to wipe.
        SecretTexts texts {heapText("kept")};
        const QStringList copy = texts;
        texts.wipe();
        QCOMPARE(copy.first(), QStringLiteral("kept"));

        // Moved on (the worker takes the texts out): nothing left behind to wipe twice.
        SecretTexts moved {heapText("moved")};
        QStringList taken(std::move(moved));
        QCOMPARE(taken.first(), QStringLiteral("moved"));
    }

    void secretBytesHaveOneHolder()
    {
        SecretBytes bytes(QByteArray("sudo password") + QByteArray("!"));
        const char *raw = bytes.bytes().constData();
        QByteArray taken = bytes.take();
        QVERIFY(bytes.bytes().isEmpty());
        QCOMPARE(taken.constData(), raw);  // moved, not copied
        QVERIFY(taken.isDetached());
        wipeSecret(taken);
        QCOMPARE(QByteArray(raw, 14), QByteArray(14, '\0'));
    }
};

QTEST_GUILESS_MAIN(TestSecrets)
#include "test_secrets.moc"
