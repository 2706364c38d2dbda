"""The default affection table: relationship words → high / low, in English and Chinese.

Source. SHARP (Kong et al., §3.2.1) derives each role's affection level "by mapping the
relationship classifications from the character relationship knowledge graph on Wikipedia to the
corresponding relationship affection level, as defined by the rules established in HPD". HPD
(Chen et al. 2023, *Large Language Models Meet Harry Potter*; README of
github.com/nuochenpku/Harry-Potter-Dialogue-Dataset, "Attributes and Relations") annotates eight
binary relation categories (Friend, Classmate, Teacher, Family, Lover, Opponent, Teammate,
Enemy) and an affection score from -10 to 10, where a score above 0 is a positive relationship
and below 0 a negative one. Neither paper publishes its category → level table, so this one is
incanon's reading of those rules:

* HPD's positive categories (Friend, Family, Lover, Teammate, Teacher) and the Wikipedia
  relationship words that name them (parents, siblings, spouses, mentors, masters, disciples,
  allies...) → high;
* HPD's negative categories (Opponent, Enemy) and their words (rivals, competitors, nemeses,
  foes...) → low; words that end a bond (estranged, former, ex-) → low;
* Classmate carries no sign in HPD and is left out: a classmate needs a type that says more,
  an explicit level, or an HPD score (a relations file's ``affection`` may be a number from -10
  to 10: above 0 is high, below 0 low, HPD's own rule).

Plural and inflected English forms ("friends", "enemies", "married") are listed as they appear
in Wikipedia infoboxes. Chinese words are matched inside longer types ("好朋友", "师父兼养父"),
so only whole words are listed: never a single character such as 前 (前辈 is a senior, not a
former anything).
"""

from __future__ import annotations

HPD_CATEGORIES = {
    "friend": "high", "family": "high", "lover": "high", "teammate": "high", "teacher": "high",
    "opponent": "low", "enemy": "low",
}
"""HPD's binary relation categories that carry a sign (Classmate does not)."""

HIGH_EN = """
friend friends friendship companion companions comrade comrades confidant
confidante ally allies teammate teammates partner partners
family relative relatives kin mother father mom dad mum parent parents son sons daughter daughters
child children sister sisters brother brothers sibling siblings twin twins half-brother half-sister
stepmother stepfather stepbrother stepsister grandmother grandfather grandparent grandparents
grandson granddaughter grandchild aunt uncle niece nephew cousin cousins godfather godmother
godson goddaughter guardian foster adoptive
husband wife spouse spouses married marriage fiance fiancee fiancé fiancée betrothed engaged
lover lovers sweetheart boyfriend girlfriend romance romantic
teacher mentor master tutor professor headmaster headmistress instructor sensei
student pupil apprentice disciple disciples protege protégé
protector benefactor admirer
""".split("\n")

LOW_EN = """
enemy enemies foe foes nemesis archenemy arch-enemy arch-nemesis adversary adversaries opponent
opponents rival rivals rivalry competitor competitors antagonist antagonists
oppressor tormentor bully bullies persecutor captor kidnapper murderer killer
betrayer traitor manipulator accuser usurper
estranged former ex ex-wife ex-husband ex-girlfriend ex-boyfriend
""".split("\n")

HIGH_ZH = """
朋友 好友 挚友 摯友 密友 知己 伙伴 夥伴 同伴 战友 戰友 队友 隊友 盟友 搭档 搭檔 兄弟 姐妹 姊妹
家人 亲人 親人 亲戚 親戚 父亲 父親 母亲 母親 爸爸 妈妈 媽媽 父母 儿子 兒子 女儿 女兒 孩子 哥哥 弟弟
姐姐 妹妹 兄长 兄長 义兄 義兄 义弟 義弟 义父 義父 义母 義母 养父 養父 养母 養母 祖父 祖母 爷爷 爺爺
奶奶 外公 外婆 孙子 孫子 孙女 孫女 叔叔 伯父 舅舅 阿姨 姑姑 表哥 表姐 表妹 表弟 堂兄 堂妹 侄子 外甥
丈夫 妻子 夫人 夫妻 夫君 娘子 未婚妻 未婚夫 恋人 戀人 爱人 愛人 情人 男朋友 女朋友 心上人 青梅竹马
老师 老師 师父 師父 师傅 師傅 恩师 恩師 导师 導師 师兄 師兄 师姐 師姐 师弟 師弟 师妹 師妹 徒弟 弟子
学生 學生 门徒 門徒 传人 傳人 恩人 救命恩人 护卫 護衛
""".split()

LOW_ZH = """
敌人 敵人 仇人 仇敌 仇敵 死敌 死敵 宿敌 宿敵 对手 對手 竞争对手 競爭對手 情敌 情敵 对头 對頭
死对头 死對頭 叛徒 背叛者 杀父仇人 殺父仇人 凶手 兇手 迫害者 压迫者 壓迫者
前妻 前夫 前任 前男友 前女友 反目 决裂 決裂 绝交 絕交 疏远 疏遠 不和
""".split()


def default_table() -> dict[str, str]:
    """Relationship word or phrase → ``high`` / ``low`` (both languages)."""
    table: dict[str, str] = {}
    for lines, level in ((HIGH_EN, "high"), (LOW_EN, "low")):
        for line in lines:
            for word in line.split():
                table[word] = level
    table.update({w: "high" for w in HIGH_ZH})
    table.update({w: "low" for w in LOW_ZH})
    table.update({"best friend": "high", "close friend": "high", "love interest": "high"})
    return table
